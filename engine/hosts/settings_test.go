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
	hooks, err := Hooks("claude-code", "loopx hook claude-code --goal g1")
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
            "command": "loopx hook claude-code --goal g1",
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
            "command": "loopx hook claude-code --goal g1",
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
            "command": "loopx hook claude-code --goal g1",
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
	hooks2, _ := Hooks("claude-code", "/usr/local/bin/loopx hook claude-code --goal g2")
	third, changes, err := MergeSettings(out, hooks2)
	if err != nil || statuses(changes) != "PreToolUse:updated Stop:updated SessionStart:updated" ||
		strings.Count(string(third), "loopx hook") != 3 || strings.Contains(string(third), "--goal g1") {
		t.Fatalf("re-install with other arguments must update in place (%v, %s):\n%s", err, statuses(changes), third)
	}
}

func TestMergeSettings_EmptyAndErrors(t *testing.T) {
	hooks, _ := Hooks("codex", "loopx hook codex")
	out, changes, err := MergeSettings(nil, hooks)
	if err != nil || len(changes) != 3 || !strings.Contains(string(out), `"matcher": "Bash|shell|apply_patch|Edit|Write|mcp__.*"`) {
		t.Fatalf("empty settings: %v %v\n%s", err, changes, out)
	}
	for _, bad := range []string{`[]`, `{"hooks": []}`, `{"hooks": {"Stop": {}}}`, `{"a": 1} x`, `{`} {
		if _, _, err := MergeSettings([]byte(bad), hooks); err == nil {
			t.Errorf("MergeSettings(%s) must fail", bad)
		}
	}
	if _, err := Hooks("cursor", "x"); err == nil {
		t.Error("unknown host must fail")
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
