package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/cli"
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
// project) to `loopx hook claude-code` and compares the answer with
// testdata/hooks/<fixture>.golden: the exit code, then stdout, normalised.
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
			host := "claude-code"
			if strings.HasPrefix(e.Name(), "codex-") {
				host = "codex"
			}
			code, stdout, stderr := run(payload, "hook", host)
			got := normalize(fmt.Sprintf("exit %d\n%s", code, stdout), work)
			golden := filepath.Join("testdata", "hooks", strings.TrimSuffix(e.Name(), ".json")+".golden")
			if os.Getenv("LOOPX_UPDATE_GOLDEN") != "" {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Fatalf("hook %s:\n--- got\n%s--- want\n%s--- stderr\n%s", e.Name(), got, want, stderr)
			}
		})
	}
	if n < 9 {
		t.Fatalf("%d fixtures, want the 9 shared ones", n)
	}
}

// TestHook_FailClosed: anything loopx cannot answer on PreToolUse exits 2
// with the reason on stderr and nothing on stdout.
func TestHook_FailClosed(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "loopx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "loopx", "loopx.cue"), []byte(hookSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LOOPX_NOW", "2026-11-29T10:00:00Z")
	t.Setenv("LOOPX_PROJECT", root)
	t.Setenv("LOOPX_GOAL", "")
	t.Setenv("LOOPX_AGENT", "")
	for name, tc := range map[string]struct {
		payload string
		env     map[string]string
		code    int
		stderr  string
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
		"stop no project": {payload: `{"hook_event_name":"Stop"}`, env: map[string]string{"LOOPX_PROJECT": filepath.Join(root, "nope")}, code: 1, stderr: "loopx hook:"},
	} {
		t.Run(name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), []string{"hook", "claude-code"}, strings.NewReader(tc.payload), &out, &errb)
			if code != tc.code || out.Len() != 0 || !strings.Contains(errb.String(), tc.stderr) {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q (want %q)", code, tc.code, out.String(), errb.String(), tc.stderr)
			}
		})
	}
}

func brokenProject(t *testing.T) string {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "loopx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "loopx", "loopx.cue"), []byte("goals: g1: {objective: 12}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}
