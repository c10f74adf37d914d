package confined

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestNew_Layout: the wall's layout hides the home's credential stores
// and makes read-only, in the hosts' writable home directories, what runs
// code or instructs the agent.
func TestNew_Layout(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(t.TempDir(), "state"))
	w, err := New(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	l := w.Layout()
	for _, c := range []struct {
		list []string
		name string
		want string
	}{
		{l.Hidden, "hidden", filepath.Join(home, ".ssh")},
		{l.Hidden, "hidden", filepath.Join(home, ".git-credentials")},
		{l.Hidden, "hidden", filepath.Join(home, ".config/gh")},
		{l.Hidden, "hidden", filepath.Join(home, ".aws")},
		{l.HomeProtected, "read-only", ".claude/hooks/**"},
		{l.HomeProtected, "read-only", ".claude/commands/**"},
		{l.HomeProtected, "read-only", ".claude/CLAUDE.md"},
		{l.HomeProtected, "read-only", ".codex/prompts/**"},
		{l.HomeProtected, "read-only", ".claude/settings*.json"},
	} {
		if !slices.Contains(c.list, c.want) {
			t.Errorf("%s %s: missing from %v", c.name, c.want, c.list)
		}
	}
	if slices.Contains(l.HomeProtected, ".claude.json") {
		t.Errorf("~/.claude.json (rewritten whole by its host) is read-only: %v", l.HomeProtected)
	}
}
