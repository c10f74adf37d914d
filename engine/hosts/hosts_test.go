package hosts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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

// TestToolCall_MCPPaths: an MCP tool whose input names files is checked
// as a write of those files; a read-only tool (by its name's first word)
// only on where it writes.
func TestToolCall_MCPPaths(t *testing.T) {
	for _, tc := range []struct {
		tool, input string
		want        []string
	}{
		{"mcp__fs__write_file", `{"path":"loopx/loopx.cue","content":"x"}`, []string{"loopx/loopx.cue"}},
		{"mcp__fs__move_file", `{"source":"a.txt","destination":".loopx/state.db"}`, []string{".loopx/state.db", "a.txt"}},
		{"mcp__fs__edit", `{"File_Path":"/etc/passwd"}`, []string{"/etc/passwd"}},
		{"mcp__ide__edit", `{"filePath":"loopx/a.cue","newPath":"b","target-path":"c"}`, []string{"loopx/a.cue", "b", "c"}},
		{"mcp__fs__search_and_replace", `{"path":"loopx/loopx.cue","pattern":"x"}`, []string{"loopx/loopx.cue"}},
		{"mcp__fs__write_many", `{"paths":["a","b",3,null,""],"target":" "}`, []string{"a", "b"}},
		{"mcp__fs__apply", `{"options":{"new_path":"loopx/x.rego","mode":1},"files":[{"path":"api/x.go"},{"old_path":"b.go"},"c.go"]}`, []string{"api/x.go", "b.go", "c.go", "loopx/x.rego"}},
		{"mcp__fs__deep", `{"a":{"b":{"path":"loopx/x"}}}`, []string{"loopx/x"}},
		// More keys, any depth, file:// URLs decoded.
		{"mcp__fs__open", `{"uri":"file:///p/loopx/loopx%2Ecue"}`, []string{"/p/loopx/loopx.cue"}},
		{"mcp__fs__open", `{"url":"https://example.com/loopx/x"}`, nil},
		{"mcp__fs__op", `{"file":"loopx/a.cue"}`, []string{"loopx/a.cue"}},
		{"mcp__fs__op", `{"from":"a","to":"loopx/a.cue"}`, []string{"a", "loopx/a.cue"}},
		{"mcp__fs__op", `{"save_to":".claude/settings.json","out":".codex/hooks.json","outputFile":"o","savepath":"s","workDir":"w"}`, []string{".codex/hooks.json", "o", ".claude/settings.json", "s", "w"}},
		{"mcp__fs__op", `{"args":{"files":[{"path":"loopx/x","content":"loopx/not-a-path"}]}}`, []string{"loopx/x"}},
		{"mcp__fs__op", `{"path":["src/ok",["loopx/x"]]}`, []string{"src/ok", "loopx/x"}},
		{"mcp__fs__op", `{"location":{"dir":"d"},"dest":[[{"filename":"f"}]]}`, []string{"f", "d"}},
		{"mcp__fs__op", `{"token":"t","timeout":"30","layout":"grid","content":"loopx/x"}`, nil},
		{"mcp__fs__ReadFileThenOverwrite", `{"path":"loopx/loopx.cue"}`, []string{"loopx/loopx.cue"}},
		{"mcp__fs__read_file", `{"path":"a","options":{"save_to":"loopx/x"}}`, []string{"loopx/x"}},
		{"mcp__web__download", `{"source":"https://example.com/x","output_path":"file:///home/u/.bashrc"}`, []string{"/home/u/.bashrc"}},
		{"mcp__web__download", `{"target":"file://"}`, nil},
		{"mcp__fs__read_file", `{"path":"loopx/loopx.cue"}`, nil},
		{"mcp__fs__readFile", `{"path":"loopx/loopx.cue"}`, nil},
		{"mcp__fs__list-directory", `{"path":"."}`, nil},
		{"mcp__fs__get_and_save", `{"path":"a","destination":"loopx/x"}`, []string{"loopx/x", "a"}},
		{"mcp__fs__get_file", `{"path":"a","dest":"loopx/x"}`, []string{"loopx/x"}},
		{"mcp__fs__readonly_looking_writer", `{"path":"a"}`, []string{"a"}},
		{"mcp__github__merge_pull_request", `{"owner":"acme","pull_number":3}`, nil},
		{"mcp__github__push_files", `{"files":[{"path":"loopx/loopx.cue","content":"x"}]}`, []string{"loopx/loopx.cue"}},
		// Abbreviated keys, and writer words beside a read verb.
		{"mcp__fs__batch", `{"ops":[{"op":"w","args":{"dst":"loopx/x"}}]}`, []string{"loopx/x"}},
		{"mcp__fs__op", `{"src":"a","dstPath":"b","fp":"c","fname":"d"}`, []string{"b", "d", "c", "a"}},
		{"mcp__fs__readThenClobber", `{"path":"loopx/loopx.cue"}`, []string{"loopx/loopx.cue"}},
		{"mcp__fs__get_file", `{"path":"a","dst":"loopx/x"}`, []string{"loopx/x"}},
	} {
		payload := `{"hook_event_name":"PreToolUse","tool_name":"` + tc.tool + `","tool_input":` + tc.input + `}`
		ev, err := ParseHook(strings.NewReader(payload))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ev.ToolCall()
		if err != nil || got.Tool != tc.tool || !reflect.DeepEqual(got.Paths, tc.want) {
			t.Errorf("%s %s: %+v, %v; want paths %q", tc.tool, tc.input, got, err, tc.want)
		}
	}
}

func TestReadOnlyTool(t *testing.T) {
	for tool, want := range map[string]bool{
		"mcp__fs__read_file": true, "mcp__fs__ReadFile": true, "mcp__fs__readFile": true, "mcp__gh__get": true,
		"mcp__gh__search-code": true, "mcp__fs__write_file": false, "mcp__fs__reader": false, "mcp__fs__": false,
		"read_file": false, "mcp__read_file": false, "mcp__s__list.items": true, "mcp__s__Get_x": true,
		"mcp__fs__search_and_replace": false, "mcp__fs__searchReplace": false, "mcp__db__get_or_create": false,
		"mcp__fs__read_then_delete": false, "mcp__fs__ReadFileThenOverwrite": false, "mcp__fs__get_and_store": false,
		"mcp__fs__readThenClobber": false, "mcp__fs__read_and_wipe": false, "mcp__fs__get_then_erase": false,
		"mcp__fs__read_upload": false, "mcp__fs__get_put": false, "mcp__fs__list_downloads": true, "mcp__web__get-and-save": false,
	} {
		if ReadOnlyTool(tool) != want {
			t.Errorf("ReadOnlyTool(%q) = %v", tool, !want)
		}
	}
}

func TestOtherAnswers(t *testing.T) {
	var b bytes.Buffer
	if err := WriteStopBlock(&b, "next: t-1"); err != nil {
		t.Fatal(err)
	}
	if err := WriteContext(&b, "goal g1"); err != nil {
		t.Fatal(err)
	}
	if err := WriteWarning(&b, "loopx hook (Stop): <bad> & payload"); err != nil {
		t.Fatal(err)
	}
	want := `{"decision":"block","reason":"next: t-1"}
{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"goal g1"}}
{"systemMessage":"loopx hook (Stop): <bad> & payload"}
`
	if b.String() != want {
		t.Fatalf("answers:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestEventName(t *testing.T) {
	for payload, want := range map[string]string{
		`{"hook_event_name":"Stop","stop_hook_active":"yes"}`: "Stop",
		`{"hook_event_name":"SessionStart"} trailing`:         "SessionStart",
		`{"hook_event_name":7}`:                               "",
		`{"hook_event_name":"Stop"`:                           "",
		``:                                                    "",
		`["Stop"]`:                                            "",
	} {
		if got := EventName([]byte(payload)); got != want {
			t.Errorf("EventName(%s) = %q, want %q", payload, got, want)
		}
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
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"mcp__fs__move_file","tool_input":{"source":"a","destination":["b","file:///c"],"o":{"path":"d"},"l":[{"target":"e"}]}}`))
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"mcp__fs__read_file","tool_input":{"path":"a","dest":"b"}}`))
	f.Add([]byte(`{"hook_event_name":"Stop","stop_hook_active":"true"}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ParseHook(bytes.NewReader(data))
		if name := EventName(data); err == nil && name != ev.Name {
			t.Fatalf("EventName = %q, ParseHook's name %q", name, ev.Name)
		}
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
		if strings.HasPrefix(ev.ToolName, "mcp__") {
			// Every string under a path field is a path (checked as a
			// write) unless it is a URL of another machine.
			var in map[string]json.RawMessage
			_ = json.Unmarshal(ev.ToolInput, &in)
			for k, raw := range in {
				var s string
				if json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" || strings.Contains(s, "://") {
					continue
				}
				if isDestinationKey(k) || (isPathKey(k) && !ReadOnlyTool(ev.ToolName)) {
					if !slices.Contains(tc.Paths, s) {
						t.Fatalf("%s: %s=%q is not among the paths %q", ev.ToolName, k, s, tc.Paths)
					}
				}
			}
		}
	})
}
