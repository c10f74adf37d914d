package hosts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const fixtures = "testdata/claude-code-hooks"

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseHook_Fixtures parses every real payload shape and checks the
// event and, for PreToolUse, the tool call loopx will decide on.
func TestParseHook_Fixtures(t *testing.T) {
	for _, tc := range []struct {
		file string
		name string
		call *ToolCall
		stop bool
	}{
		{"pretooluse-bash-push.json", PreToolUse, &ToolCall{Tool: "Bash", Command: "git push origin feature/v2"}, false},
		{"pretooluse-edit-in-scope.json", PreToolUse, &ToolCall{Tool: "Edit", Paths: []string{"/home/dev/src/acme-api/api/v2/handlers.go"}}, false},
		{"pretooluse-write-policy.json", PreToolUse, &ToolCall{Tool: "Write", Paths: []string{"/home/dev/src/acme-api/loopx/loopx.cue"}}, false},
		{"pretooluse-multiedit-traversal.json", PreToolUse, &ToolCall{Tool: "MultiEdit", Paths: []string{"/home/dev/src/acme-api/api/../../../.ssh/config"}}, false},
		{"pretooluse-mcp.json", PreToolUse, &ToolCall{Tool: "mcp__github__merge_pull_request"}, false},
		{"codex-pretooluse-apply-patch.json", PreToolUse, &ToolCall{Tool: "apply_patch", Paths: []string{"loopx/loopx.cue"}}, false},
		{"stop.json", Stop, nil, false},
		{"stop-already-continuing.json", Stop, nil, true},
		{"sessionstart.json", SessionStart, nil, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ev, err := ParseHook(bytes.NewReader(fixture(t, tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			if ev.Name != tc.name || ev.StopHookActive != tc.stop || ev.CWD != "/home/dev/src/acme-api" {
				t.Fatalf("event = %+v", ev)
			}
			if tc.call == nil {
				if _, err := ev.ToolCall(); err == nil {
					t.Fatal("ToolCall on a non-PreToolUse event must fail")
				}
				return
			}
			got, err := ev.ToolCall()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, *tc.call) {
				t.Fatalf("ToolCall = %+v, want %+v", got, *tc.call)
			}
		})
	}
}

func TestParseHook_Codex(t *testing.T) {
	ev, err := ParseHook(bytes.NewReader(fixture(t, "codex-pretooluse-apply-patch.json")))
	if err != nil {
		t.Fatal(err)
	}
	if ev.TurnID != "turn_7" || ev.Model != "gpt-5-codex" || ev.TranscriptPath != "" {
		t.Fatalf("codex fields: %+v", ev)
	}
}

func TestParseHook_BadInput(t *testing.T) {
	for name, payload := range map[string]string{
		"empty":             "",
		"not json":          "hello",
		"array":             `[{"hook_event_name":"PreToolUse"}]`,
		"truncated":         `{"hook_event_name":"PreToolUse","tool_name":"Bash"`,
		"trailing":          `{"hook_event_name":"Stop"} {}`,
		"no event":          `{"tool_name":"Bash","tool_input":{"command":"ls"}}`,
		"event not string":  `{"hook_event_name":7}`,
		"no tool":           `{"hook_event_name":"PreToolUse","tool_input":{}}`,
		"input not object":  `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}`,
		"no input":          `{"hook_event_name":"PreToolUse","tool_name":"Bash"}`,
		"stop active typed": `{"hook_event_name":"Stop","stop_hook_active":"yes"}`,
	} {
		if ev, err := ParseHook(strings.NewReader(payload)); err == nil {
			t.Errorf("%s: ParseHook(%q) = %+v, want an error", name, payload, ev)
		}
	}
}

func TestToolCall_BadInput(t *testing.T) {
	for _, payload := range []string{
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"  "}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":7}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"x"}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":""}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"MultiEdit","tool_input":{"file_path":"a","edits":"x"}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"MultiEdit","tool_input":{"file_path":"a","edits":[{"file_path":3}]}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"NotebookEdit","tool_input":{"new_source":"x"}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"no headers"}}`,
	} {
		ev, err := ParseHook(strings.NewReader(payload))
		if err != nil {
			t.Fatalf("%s: %v", payload, err)
		}
		if tc, err := ev.ToolCall(); err == nil {
			t.Errorf("ToolCall(%s) = %+v, want an error", payload, tc)
		}
	}
}

func TestToolCall_Shapes(t *testing.T) {
	for payload, want := range map[string]ToolCall{
		`{"hook_event_name":"PreToolUse","tool_name":"MultiEdit","tool_input":{"file_path":"a.go","edits":[{"old_string":"x"},{"file_path":"b.go"}]}}`: {Tool: "MultiEdit", Paths: []string{"a.go", "b.go"}},
		`{"hook_event_name":"PreToolUse","tool_name":"NotebookEdit","tool_input":{"notebook_path":"n.ipynb","new_source":"x"}}`:                        {Tool: "NotebookEdit", Paths: []string{"n.ipynb"}},
		`{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":["bash","-lc","git push"]}}`:                                      {Tool: "shell", Command: `'bash' '-lc' 'git push'`},
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"apply_patch <<'E'\n*** Begin Patch\n*** Add File: docs/a.md\n*** Update File: x.go\n*** Move to: y.go\n*** End Patch\nE"}}`: {
			Tool: "Bash", Command: "apply_patch <<'E'\n*** Begin Patch\n*** Add File: docs/a.md\n*** Update File: x.go\n*** Move to: y.go\n*** End Patch\nE", Paths: []string{"docs/a.md", "x.go", "y.go"}},
		`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"loopx/loopx.cue"}}`: {Tool: "Read"},
	} {
		ev, err := ParseHook(strings.NewReader(payload))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ev.ToolCall()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ToolCall(%s) = %+v, %v; want %+v", payload, got, err, want)
		}
	}
}

func TestAnswers(t *testing.T) {
	var b bytes.Buffer
	if err := WritePermission(&b, "deny", "loopx: protected_path: loopx/loopx.cue <is> loopx's own & more"); err != nil {
		t.Fatal(err)
	}
	if err := WriteStopBlock(&b, "next: t-1"); err != nil {
		t.Fatal(err)
	}
	if err := WriteContext(&b, "goal g1"); err != nil {
		t.Fatal(err)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"loopx: protected_path: loopx/loopx.cue <is> loopx's own & more"}}
{"decision":"block","reason":"next: t-1"}
{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"goal g1"}}
`
	if b.String() != want {
		t.Fatalf("answers:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WritePermission(&b, "run", "x"); err == nil || b.Len() != 0 {
		t.Fatalf("a verdict that is not a permission answer must fail and write nothing: %v %q", err, b.String())
	}
}

// FuzzParseHook: the parser never panics; anything that is not a JSON
// object is an error; a PreToolUse call is either an error or names its tool.
func FuzzParseHook(f *testing.F) {
	entries, _ := os.ReadDir(fixtures)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			f.Add(fixture(f, e.Name()))
		}
	}
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"MultiEdit","tool_input":{"file_path":"a","edits":[{"file_path":"b"}]}}`))
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":["a","b"]}}`))
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":null}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ParseHook(bytes.NewReader(data))
		var obj map[string]any
		if json.Unmarshal(data, &obj) != nil && err == nil {
			t.Fatalf("ParseHook accepted input that is not a JSON object: %q", data)
		}
		if err != nil {
			if ev.Name != "" {
				t.Fatalf("an error must come with a zero event: %+v", ev)
			}
			return
		}
		if ev.Name == "" {
			t.Fatal("accepted an event without a name")
		}
		if ev.Name != PreToolUse {
			return
		}
		tc, err := ev.ToolCall()
		if err == nil && tc.Tool == "" {
			t.Fatalf("a PreToolUse call without a tool: %q", data)
		}
		for _, p := range tc.Paths {
			if err == nil && strings.TrimSpace(p) == "" {
				t.Fatalf("an empty path: %q", data)
			}
		}
	})
}
