package hosts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstalled_RecordReadCheck(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, ".loopx")
	hooks, err := testHooks(testClaudeCode, "--goal g1")
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(root, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	merged, _, err := MergeSettings(nil, hooks)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		settings []byte // nil: the file is removed
		problem  string // "" = none
	}{
		{"as installed", merged, ""},
		{"the file is gone", nil, "the file is gone: every loopx hook is gone"},
		{"the entries removed", []byte(`{"hooks": {}}`), "PreToolUse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.settings == nil {
				_ = os.Remove(settings)
			} else if err := os.WriteFile(settings, tc.settings, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := Record(state, testClaudeCode, ".claude/settings.json", hooks, "", nil, nil); err != nil {
				t.Fatal(err)
			}
			recs, err := ReadInstalled(state)
			if err != nil || len(recs) != 1 || recs[0].Settings != ".claude/settings.json" || len(recs[0].Hooks) != len(hooks) {
				t.Fatalf("records %+v, %v", recs, err)
			}
			probs, err := CheckInstalled(root, state, testLookup)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.problem == "" && len(probs) != 0:
				t.Fatalf("problems %+v, want none", probs)
			case tc.problem != "" && (len(probs) == 0 || !strings.Contains(probs[0].Problem, tc.problem)):
				t.Fatalf("problems %+v, want one with %q", probs, tc.problem)
			case tc.problem != "" && probs[0].Fix != "loopx hooks install --host claude-code --goal g1":
				t.Fatalf("fix %q", probs[0].Fix)
			}
		})
	}
	if recs, err := ReadInstalled(t.TempDir()); recs != nil || err != nil {
		t.Fatalf("no record file: %+v, %v", recs, err)
	}
}

// TestRestore_TheUsersBytesComeBack: what uninstall leaves is replaced by
// the file as it was before the first install when both hold the same JSON
// (inline arrays, other indentation and spacing come back), and kept when
// the user changed a value since, or the original is not JSON.
func TestRestore_TheUsersBytesComeBack(t *testing.T) {
	original := "{\n    \"model\": \"opus\",\n    \"permissions\": {\"allow\": [\"Bash(ls:*)\", \"Read\"], \"deny\": []},\n    \"n\": 1.50\n}\n"
	reencoded := "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls:*)\",\n      \"Read\"\n    ],\n    \"deny\": []\n  },\n  \"n\": 1.50\n}\n"
	for _, tc := range []struct {
		name, out, original, want string
	}{
		{"same JSON, the user's layout", reencoded, original, original},
		{"a value changed since", strings.Replace(reencoded, "opus", "sonnet", 1), original, strings.Replace(reencoded, "opus", "sonnet", 1)},
		{"a number written otherwise", strings.Replace(reencoded, "1.50", "1.5", 1), original, strings.Replace(reencoded, "1.50", "1.5", 1)},
		{"no original", reencoded, "", reencoded},
		{"an original that is not JSON", reencoded, "{", reencoded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(Restore([]byte(tc.out), tc.original)); got != tc.want {
				t.Errorf("Restore = %q, want %q", got, tc.want)
			}
		})
	}
}
