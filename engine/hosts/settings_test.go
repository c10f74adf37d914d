package hosts

import (
	"strings"
	"testing"
)

func TestMergeSettings_KeepsOtherHooksAndIsIdempotent(t *testing.T) {
	in := `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh && echo <ok>", "timeout": 5}]}
    ],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]
  },
  "model": "opus"
}`
	hooks, err := testHooks("claude-code", "--goal g1")
	if err != nil {
		t.Fatal(err)
	}
	out, changes, err := MergeSettings([]byte(in), hooks)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "permissions": {
    "allow": [
      "Bash(go test:*)"
    ]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./audit.sh && echo <ok>",
            "timeout": 5
          }
        ]
      },
      {
        "matcher": "Bash|Edit|Write|MultiEdit|NotebookEdit|mcp__.*",
        "hooks": [
          {
            "type": "command",
            "command": "loopx hook claude-code --event PreToolUse --goal g1",
            "timeout": 10
          }
        ]
      }
    ],
    "Notification": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send hi"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "loopx hook claude-code --event Stop --goal g1",
            "timeout": 10
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup|resume|clear|compact",
        "hooks": [
          {
            "type": "command",
            "command": "loopx hook claude-code --event SessionStart --goal g1",
            "timeout": 10
          }
        ]
      }
    ]
  },
  "model": "opus"
}
`
	if string(out) != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", out, want)
	}
	if s := statuses(changes); s != "PreToolUse:added Stop:added SessionStart:added" {
		t.Fatalf("changes = %s", s)
	}
	again, changes, err := MergeSettings(out, hooks)
	if err != nil || string(again) != string(out) || statuses(changes) != "PreToolUse:unchanged Stop:unchanged SessionStart:unchanged" {
		t.Fatalf("second merge changed something (%v, %s):\n%s", err, statuses(changes), again)
	}
	hooks2, _ := testHooks("claude-code", "--goal g2")
	third, changes, err := MergeSettings(out, hooks2)
	if err != nil || statuses(changes) != "PreToolUse:updated Stop:updated SessionStart:updated" ||
		strings.Count(string(third), "loopx hook") != 3 || strings.Contains(string(third), "--goal g1") {
		t.Fatalf("re-install with other arguments must update in place (%v, %s):\n%s", err, statuses(changes), third)
	}
}

func TestMergeSettings_EmptyAndErrors(t *testing.T) {
	hooks, _ := testHooks("codex", "")
	out, changes, err := MergeSettings(nil, hooks)
	if err != nil || len(changes) != 3 || !strings.Contains(string(out), `"matcher": "Bash|shell|apply_patch|Edit|Write|mcp__.*"`) {
		t.Fatalf("empty settings: %v %v\n%s", err, changes, out)
	}
	for _, bad := range []string{`[]`, `{"hooks": []}`, `{"hooks": {"Stop": {}}}`, `{"a": 1} x`, `{`} {
		if _, _, err := MergeSettings([]byte(bad), hooks); err == nil {
			t.Errorf("MergeSettings(%s) must fail", bad)
		}
	}
}

// TestMergeSettings_RepairsEditedEntries: an agent (or a person) narrowed
// loopx's PreToolUse matcher, shortened a timeout and changed a type;
// installing again restores loopx's entries, leaving the user's own hook
// where it was.
func TestMergeSettings_RepairsEditedEntries(t *testing.T) {
	hooks, _ := testHooks("claude-code", "")
	in := `{"hooks": {
  "PreToolUse": [{"matcher": "Read", "hooks": [
    {"type": "command", "command": "./audit.sh"},
    {"type": "command", "command": "loopx hook claude-code --event PreToolUse", "timeout": 10}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "loopx hook claude-code --event Stop", "timeout": 1}]}],
  "SessionStart": [{"matcher": "startup|resume|clear|compact", "hooks": [{"type": "prompt", "command": "loopx hook claude-code --event SessionStart", "timeout": 10}]}]
}}`
	if p := CheckSettings([]byte(in), hooks); len(p) != 3 {
		t.Fatalf("CheckSettings found %d problems, want 3: %q", len(p), p)
	}
	out, changes, err := MergeSettings([]byte(in), hooks)
	if err != nil || statuses(changes) != "PreToolUse:updated Stop:updated SessionStart:updated" {
		t.Fatalf("%v %s", err, statuses(changes))
	}
	if p := CheckSettings(out, hooks); len(p) != 0 {
		t.Fatalf("after the repair: %q\n%s", p, out)
	}
	if !strings.Contains(string(out), `"matcher": "Read",
        "hooks": [
          {
            "type": "command",
            "command": "./audit.sh"
          }
        ]`) || strings.Count(string(out), "loopx hook") != 3 {
		t.Fatalf("the user's hook must stay under its matcher, loopx's move out:\n%s", out)
	}
}

// TestCheckSettings: what `loopx doctor` reports for installed entries.
func TestCheckSettings(t *testing.T) {
	hooks, _ := testHooks("codex", "--goal g1")
	good, _, err := MergeSettings([]byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./notify.sh"}]}]}}`), hooks)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		doc  string
		want []string
	}{
		"in place":       {string(good), nil},
		"not json":       {"{", []string{"the settings are not JSON (EOF): every loopx hook is gone"}},
		"no hooks":       {`{"model": "x"}`, []string{`the settings have no "hooks" object: every loopx hook is gone`}},
		"stop deleted":   {strings.Replace(string(good), "--event Stop --goal g1", "--event Stop --goal g2", 1), []string{"Stop hook `loopx hook codex --event Stop --goal g1` is missing"}},
		"matcher edited": {strings.Replace(string(good), `"Bash|shell|apply_patch|Edit|Write|mcp__.*"`, `"Read"`, 1), []string{"PreToolUse hook `loopx hook codex --event PreToolUse --goal g1` changed: its matcher is \"Read\", not \"Bash|shell|apply_patch|Edit|Write|mcp__.*\""}},
		"all deleted":    {`{"hooks": {}}`, []string{"PreToolUse hook `loopx hook codex --event PreToolUse --goal g1` is missing", "Stop hook `loopx hook codex --event Stop --goal g1` is missing", "SessionStart hook `loopx hook codex --event SessionStart --goal g1` is missing"}},
	} {
		got := CheckSettings([]byte(tc.doc), hooks)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s: CheckSettings = %q, want %q", name, got, tc.want)
		}
	}
}

func TestIsLoopxHook(t *testing.T) {
	for cmd, want := range map[string]bool{
		"loopx hook claude-code": true, "/opt/bin/loopx hook codex --goal g": true,
		"loopx vet": false, "./audit.sh": false, "": false, "myloopx hook": false,
	} {
		if IsLoopxHook(cmd) != want {
			t.Errorf("IsLoopxHook(%q) = %v", cmd, !want)
		}
	}
}

func statuses(cs []Change) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.Event+":"+c.Status)
	}
	return strings.Join(s, " ")
}

func TestHasLoopxHook(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/usr/local/bin/loopx hook codex --event Stop"}]}]}}`: true,
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo loopx hook"}]}]}}`:       false,
		`{"permissions":{"allow":["Bash(ls)"]}}`: false,
		`not json`:                               false,
		`{"hooks":{"Stop":"x"}}`:                 false,
	} {
		if got := HasLoopxHook([]byte(doc)); got != want {
			t.Errorf("HasLoopxHook(%s) = %v", doc, got)
		}
	}
}
