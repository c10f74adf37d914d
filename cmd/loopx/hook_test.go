package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/cli"
	"github.com/loopx-dev/loopx/internal/testproject"
)

// The real hook payload shapes (copied from the shared fixtures; CI cannot
// read /work/shared).
const hookFixtures = "../../engine/hosts/testdata/claude-code-hooks"

const hookSpec = `project: name: "acme-api"
agents: claude: {host: "claude-code", role: "executor"}
agents: codex: {host: "codex", role: "executor"}
goals: "ship-v2": {
	objective: "Ship the v2 API with a migration guide"
	agents: ["claude", "codex"]
	quota: {window: "24h", rounds: 24, min_interval: "0s"}
	scope: {
		write: ["api/**", "docs/**"]
		deny:  [".env", "secrets/**"]
		commands: {deny: ["git push --force*"], ask: ["git push*", "npm publish*"]}
	}
	gates: merge: {
		question: "Merge the v2 branch into main?"
		guards: ["git.merge", "git.push"]
	}
}
`

// TestHook_Golden feeds every fixture payload (its cwd pointed at a real
// project) to `loopx hook claude-code` and to `loopx hook codex` (with
// --event, as installed) and compares the answers with
// testdata/hooks/<fixture>.golden: per host, the exit code, then stdout,
// normalised.
// LOOPX_UPDATE_GOLDEN=1 rewrites the goldens (review the diff).
func TestHook_Golden(t *testing.T) {
	work := t.TempDir()
	root := filepath.Join(work, "home", "dev", "src", "acme-api") // as deep as the fixtures' cwd
	if err := os.MkdirAll(filepath.Join(root, "loopx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "loopx", "loopx.cue"), []byte(hookSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LOOPX_NOW", "2026-11-29T10:00:00Z")
	t.Setenv("LOOPX_PROJECT", root)
	for _, k := range []string{"LOOPX_GOAL", "LOOPX_AGENT", "LOOPX_ROUND"} {
		t.Setenv(k, "")
	}
	run := func(stdin []byte, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), args, bytes.NewReader(stdin), &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, _, stderr := run(nil, "todo", "add", "--goal", "ship-v2", "Write the migration guide"); code != 0 {
		t.Fatal(stderr)
	}
	entries, err := os.ReadDir(hookFixtures)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		n++
		t.Run(e.Name(), func(t *testing.T) {
			payload, err := os.ReadFile(filepath.Join(hookFixtures, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			payload = bytes.ReplaceAll(payload, []byte("/home/dev/src/acme-api"), []byte(root))
			var ev struct {
				Name string `json:"hook_event_name"`
			}
			if err := json.Unmarshal(payload, &ev); err != nil {
				t.Fatal(err)
			}
			var got string
			for _, host := range []string{"claude-code", "codex"} {
				code, stdout, stderr := run(payload, "hook", host, "--event", ev.Name)
				got += normalize(fmt.Sprintf("%s: exit %d\n%s", host, code, stdout), work)
				if code != 0 {
					got += stderr
				}
			}
			checkGolden(t, filepath.Join("hooks", strings.TrimSuffix(e.Name(), ".json")+".golden"), got)
		})
	}
	if n < 9 {
		t.Fatalf("%d fixtures, want the 9 shared ones", n)
	}
}

// TestHook_FailClosed: anything loopx cannot answer on PreToolUse exits 2
// with the reason on stderr and nothing on stdout; on Stop it is a warning
// (exit 0).
func TestHook_FailClosed(t *testing.T) {
	root := testproject.New(t, hookSpec).Root
	t.Setenv("LOOPX_NOW", "2026-11-29T10:00:00Z")
	t.Setenv("LOOPX_PROJECT", root)
	t.Setenv("LOOPX_GOAL", "")
	t.Setenv("LOOPX_AGENT", "")
	for name, tc := range map[string]struct {
		payload string
		env     map[string]string
		code    int
		stderr  string
		stdout  string
	}{
		"not json":        {payload: "hello", code: 2, stderr: "not a JSON object"},
		"truncated":       {payload: `{"hook_event_name":"PreToolUse"`, code: 2, stderr: "hook payload"},
		"no tool input":   {payload: `{"hook_event_name":"PreToolUse","tool_name":"Bash"}`, code: 2, stderr: "tool_input is not an object"},
		"no command":      {payload: `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}`, code: 2, stderr: "tool_input.command"},
		"no file_path":    {payload: `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"x"}}`, code: 2, stderr: "tool_input.file_path is missing"},
		"no project":      {payload: `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, env: map[string]string{"LOOPX_PROJECT": filepath.Join(root, "nope")}, code: 2, stderr: "blocked"},
		"broken spec":     {payload: `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, env: map[string]string{"LOOPX_PROJECT": brokenProject(t)}, code: 2, stderr: "spec is broken"},
		"bad clock":       {payload: `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, env: map[string]string{"LOOPX_NOW": "soon"}, code: 2, stderr: "LOOPX_NOW"},
		"unknown event":   {payload: `{"hook_event_name":"Notification","message":"hi"}`, code: 0},
		"stop bad goal":   {payload: `{"hook_event_name":"Stop"}`, env: map[string]string{"LOOPX_GOAL": "nope"}, code: 0},
		"stop no project": {payload: `{"hook_event_name":"Stop"}`, env: map[string]string{"LOOPX_PROJECT": filepath.Join(root, "nope")}, code: 0, stderr: "loopx hook: project ", stdout: `{"systemMessage":"loopx hook (Stop): project `},
	} {
		t.Run(name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), []string{"hook", "claude-code"}, strings.NewReader(tc.payload), &out, &errb)
			if code != tc.code || !strings.HasPrefix(out.String(), tc.stdout) || (tc.stdout == "") != (out.Len() == 0) || !strings.Contains(errb.String(), tc.stderr) {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q (want %q)", code, tc.code, out.String(), errb.String(), tc.stderr)
			}
		})
	}
}

func brokenProject(t *testing.T) string {
	return testproject.New(t, "goals: g1: {objective: 12}\n").Root
}

// TestHook_BrokenPayloadsByEvent: a payload loopx cannot
// decode — empty stdin, not JSON, a field whose type changed
// (stop_hook_active as a string, source as a number, tool_input as a
// string) — never blocks Stop, SubagentStop or SessionStart: exit 0, the
// error on stderr and as a systemMessage for the user, on both hosts. On
// PreToolUse alone it fails closed: exit 2, the reason on stderr, nothing
// on stdout. The event comes from --event (written by hooks install), also
// when the payload names none.
func TestHook_BrokenPayloadsByEvent(t *testing.T) {
	root := testproject.New(t, hookSpec).Root
	t.Setenv("LOOPX_NOW", "2026-11-29T10:00:00Z")
	t.Setenv("LOOPX_PROJECT", root)
	t.Setenv("LOOPX_GOAL", "ship-v2")
	t.Setenv("LOOPX_AGENT", "")
	fixture := func(name, from, to string) string {
		b, err := os.ReadFile(filepath.Join(hookFixtures, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(from)) {
			t.Fatalf("%s has no %s", name, from)
		}
		return string(bytes.Replace(b, []byte(from), []byte(to), 1))
	}
	stop := fixture("stop.json", `"stop_hook_active":false`, `"stop_hook_active":"false"`)
	broken := map[string][]struct{ name, payload, err string }{
		"Stop": {
			{"empty stdin", "", "hook payload is empty (no JSON on stdin)"},
			{"not json", "Stop!", "hook payload is not a JSON object"},
			{"stop_hook_active a string", stop, "hook payload: json: cannot unmarshal string into Go struct field Event.stop_hook_active of type bool"},
			{"truncated", stop[:40], "hook payload: unexpected EOF"},
		},
		"SubagentStop": {
			{"stop_hook_active a string", strings.Replace(stop, `"Stop"`, `"SubagentStop"`, 1), "hook payload: json: cannot unmarshal string into Go struct field Event.stop_hook_active of type bool"},
			{"empty stdin", "", "hook payload is empty (no JSON on stdin)"},
		},
		"SessionStart": {
			{"source a number", fixture("sessionstart.json", `"source":"startup"`, `"source":3`), "hook payload: json: cannot unmarshal number into Go struct field Event.source of type string"},
			{"empty stdin", "", "hook payload is empty (no JSON on stdin)"},
		},
		"PreToolUse": {
			{"tool_input a string", fixture("pretooluse-edit-in-scope.json", `"tool_input":{`, `"tool_input":"x","was":{`), "PreToolUse payload: tool_input is not an object"},
			{"session_id a number", fixture("pretooluse-bash-push.json", `"session_id":"8f0c2d7e-1b2a-4c9e-9d61-2f4b7a0e5c11"`, `"session_id":7`), "hook payload: json: cannot unmarshal number into Go struct field Event.session_id of type string"},
			{"empty stdin", "", "hook payload is empty (no JSON on stdin)"},
		},
	}
	for _, host := range []string{"claude-code", "codex"} {
		for event, cases := range broken {
			for _, tc := range cases {
				t.Run(host+"/"+event+"/"+tc.name, func(t *testing.T) {
					var out, errb bytes.Buffer
					code := cli.Run(context.Background(), []string{"hook", host, "--event", event}, strings.NewReader(tc.payload), &out, &errb)
					if event == "PreToolUse" {
						want := "loopx hook: blocked: " + tc.err + "\n"
						if code != 2 || out.Len() != 0 || errb.String() != want {
							t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr %q", code, out.String(), errb.String(), want)
						}
						return
					}
					wantOut := `{"systemMessage":"loopx hook (` + event + `): ` + strings.ReplaceAll(tc.err, `"`, `\"`) + `"}` + "\n"
					if code != 0 || out.String() != wantOut || errb.String() != "loopx hook: "+tc.err+"\n" {
						t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0, stdout %q", code, out.String(), errb.String(), wantOut)
					}
				})
			}
		}
	}
	// Without --event (an entry installed by an older loopx) an unreadable
	// payload may be a PreToolUse: it blocks; a payload whose event name is
	// readable is answered as that event.
	for _, tc := range []struct {
		payload string
		code    int
	}{{"", 2}, {"{", 2}, {stop, 0}} {
		var out, errb bytes.Buffer
		if code := cli.Run(context.Background(), []string{"hook", "codex"}, strings.NewReader(tc.payload), &out, &errb); code != tc.code {
			t.Errorf("no --event, payload %q: exit %d, want %d (%s)", tc.payload, code, tc.code, errb.String())
		}
	}
	// A payload of another event than --event: the installed --event wins.
	// A PreToolUse entry blocks; a Stop, SubagentStop or SessionStart entry
	// never exits 2 (on Stop that would keep the agent working): a warning.
	push := fixture("pretooluse-bash-push.json", "", "")
	for _, tc := range []struct {
		event, payload string
		code           int
	}{
		{"Stop", push, 0}, {"SubagentStop", push, 0}, {"SessionStart", push, 0},
		{"PreToolUse", fixture("stop.json", "", ""), 2}, {"SessionStart", fixture("stop.json", "", ""), 0},
	} {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), []string{"hook", "claude-code", "--event", tc.event}, strings.NewReader(tc.payload), &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), "but this hook entry is installed for --event "+tc.event) {
			t.Errorf("--event %s: exit %d (want %d), stderr %q", tc.event, code, tc.code, errb.String())
		}
		if tc.code == 0 && !strings.HasPrefix(out.String(), `{"systemMessage":"loopx hook (`+tc.event+`): the payload is a`) {
			t.Errorf("--event %s: stdout %q, want a systemMessage warning", tc.event, out.String())
		}
	}
}

// TestHook_ArgumentErrorsByEvent: a `loopx hook` whose arguments cobra
// refuses (an unknown flag, a missing or unknown host) never exits 2 on a
// Stop, SubagentStop or SessionStart event (--event as written, else the
// payload's); on PreToolUse, or when the event is unknown, it blocks.
func TestHook_ArgumentErrorsByEvent(t *testing.T) {
	stop := `{"hook_event_name":"Stop","session_id":"s","stop_hook_active":false}`
	pre := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	for _, tc := range []struct {
		name    string
		args    []string
		payload string
		code    int
		err     string
	}{
		{"unknown flag after --event Stop", []string{"hook", "claude-code", "--event", "Stop", "--bogus"}, stop, 0, "unknown flag: --bogus"},
		{"unknown flag before --event=SessionStart", []string{"hook", "--bogus", "codex", "--event=SessionStart"}, stop, 0, "unknown flag: --bogus"},
		{"unknown flag, event from the payload", []string{"hook", "codex", "--bogus"}, stop, 0, "unknown flag: --bogus"},
		{"unknown flag on SubagentStop", []string{"hook", "codex", "--event", "SubagentStop", "--goal"}, stop, 0, "flag needs an argument: --goal"},
		{"unknown host on Stop", []string{"hook", "cursor", "--event", "Stop"}, stop, 0, `unknown host "cursor" (want claude-code or codex)`},
		{"no host on Stop", []string{"hook", "--event", "Stop"}, stop, 0, "want one host argument (claude-code or codex), got 0"},
		{"unknown flag on PreToolUse", []string{"hook", "claude-code", "--event", "PreToolUse", "--bogus"}, pre, 2, "unknown flag: --bogus"},
		{"unknown flag, PreToolUse payload", []string{"hook", "claude-code", "--bogus"}, pre, 2, "unknown flag: --bogus"},
		{"unknown flag, unreadable payload", []string{"hook", "claude-code", "--bogus"}, "{", 2, "unknown flag: --bogus"},
		{"--event in lower case is Stop", []string{"hook", "claude-code", "--event", "stop", "--bogus"}, pre, 0, "unknown flag: --bogus"},
		{"--event in lower case is PreToolUse", []string{"hook", "codex", "--event=pretooluse", "--bogus"}, stop, 2, "unknown flag: --bogus"},
		{"unknown --event blocks", []string{"hook", "codex", "--event", "Stopp"}, stop, 2, `--event "Stopp": want one of PreToolUse, Stop, SubagentStop, SessionStart`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), tc.args, strings.NewReader(tc.payload), &out, &errb)
			wantErr := "loopx hook: " + tc.err + "\n"
			if tc.code == 2 {
				wantErr = "loopx hook: blocked: " + tc.err + "\n"
			}
			if code != tc.code || errb.String() != wantErr {
				t.Fatalf("exit %d, stderr %q; want exit %d, stderr %q", code, errb.String(), tc.code, wantErr)
			}
			if tc.code == 0 && !strings.Contains(out.String(), `"systemMessage":"loopx hook (`) {
				t.Fatalf("stdout %q: want a systemMessage", out.String())
			}
			if tc.code == 2 && out.Len() != 0 {
				t.Fatalf("stdout %q: want none when blocked", out.String())
			}
		})
	}
}
