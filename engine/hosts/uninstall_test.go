package hosts

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestUnmergeSettings_RemovesOnlyLoopxEntries: every `loopx hook` entry
// goes, under every event; the user's keys, events and hooks stay in their
// order (even beside loopx's in one group); groups, events and "hooks"
// emptied by the removal go; a document without loopx hooks is returned
// as the same bytes; uninstalling twice removes nothing more.
func TestUnmergeSettings_RemovesOnlyLoopxEntries(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		removed        []Removed
	}{
		{name: "empty document", in: "", want: ""},
		{name: "no hooks key", in: "{\"model\": \"opus\"}\n", want: "{\"model\": \"opus\"}\n"},
		{name: "no loopx hook keeps the bytes", in: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}`,
			want: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}`},
		{name: "only loopx: hooks key goes", in: `{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "loopx hook codex --event Stop", "timeout": 10}]}]}}`,
			want:    "{\n  \"model\": \"opus\"\n}\n",
			removed: []Removed{{Event: "Stop", Command: "loopx hook codex --event Stop"}}},
		{name: "user hook beside loopx's in one group", in: `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "/usr/local/bin/loopx hook claude-code --event PreToolUse --goal g1", "timeout": 10},
    {"type": "command", "command": "./audit.sh"}]}],
  "Notification": [{"hooks": [{"type": "command", "command": "notify-send loopx hook"}]}],
  "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "loopx hook claude-code --event SessionStart"}]}],
  "Stop": []}}`,
			want: `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./audit.sh"
          }
        ]
      }
    ],
    "Notification": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send loopx hook"
          }
        ]
      }
    ],
    "Stop": []
  }
}
`,
			removed: []Removed{{Event: "PreToolUse", Matcher: "Bash", Command: "/usr/local/bin/loopx hook claude-code --event PreToolUse --goal g1"},
				{Event: "SessionStart", Matcher: "startup", Command: "loopx hook claude-code --event SessionStart"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, removed, err := UnmergeSettings([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out, tc.want)
			}
			if !reflect.DeepEqual(removed, tc.removed) {
				t.Errorf("removed %+v, want %+v", removed, tc.removed)
			}
			again, removed2, err := UnmergeSettings(out)
			if err != nil || string(again) != string(out) || len(removed2) != 0 {
				t.Errorf("second uninstall: %q %+v %v", again, removed2, err)
			}
		})
	}
}

// TestUnmergeSettings_UndoesInstall: uninstalling after an install gives
// back the user's document, byte for byte when it was written in the
// two-space layout, for both hosts.
func TestUnmergeSettings_UndoesInstall(t *testing.T) {
	user := `{
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
            "command": "./audit.sh",
            "timeout": 5
          }
        ]
      }
    ]
  },
  "model": "opus"
}
`
	for _, host := range []string{testClaudeCode, testCodex} {
		for _, doc := range []string{user, "{\n  \"model\": \"opus\"\n}\n"} {
			hooks, err := testHooks(host, "--goal g1 --agent a1")
			if err != nil {
				t.Fatal(err)
			}
			installed, _, err := MergeSettings([]byte(doc), hooks)
			if err != nil {
				t.Fatal(err)
			}
			out, removed, err := UnmergeSettings(installed)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != doc {
				t.Errorf("%s: uninstall gave\n%s\nwant\n%s", host, out, doc)
			}
			if len(removed) != len(hooks) {
				t.Errorf("%s: removed %+v, want the %d installed", host, removed, len(hooks))
			}
			for i, r := range removed {
				if r.Event != hooks[i].Event || r.Matcher != hooks[i].Matcher || r.Command != hooks[i].Command {
					t.Errorf("%s: removed[%d] = %+v, want %+v", host, i, r, hooks[i])
				}
			}
		}
	}
}

func TestUnmergeSettings_Errors(t *testing.T) {
	for _, in := range []string{`{`, `[]`, `{"hooks": []}`, `{"hooks": {"Stop": {}}}`, `{} {}`} {
		if _, _, err := UnmergeSettings([]byte(in)); err == nil {
			t.Errorf("%s: no error", in)
		} else if json.Valid([]byte(in)) && !strings.Contains(err.Error(), "settings") {
			t.Errorf("%s: %v", in, err)
		}
	}
}
