package confined

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
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

// TestSweep_LeftoverPlaceholders: placeholders recorded by a sandbox whose
// loopx run was killed go at the next start, only those still as they
// were made, and not while another sandbox of the work tree runs.
func TestSweep_LeftoverPlaceholders(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(t.TempDir(), "state"))
	w, err := New(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(w.lock), 0o700); err != nil {
		t.Fatal(err)
	}
	empty, used, dir := filepath.Join(root, ".envrc"), filepath.Join(root, ".gitmodules"), filepath.Join(root, ".husky")
	for _, p := range []string{empty, used} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(used, []byte("[submodule \"x\"]\n"), 0o644); err != nil { // written since: kept
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.lock, []byte(empty+"\n"+used+"\n"+dir+"\n/etc/passwd\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// a sandbox runs (its shared lock): nothing is removed
	other, err := os.Open(w.lock)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	w.Sweep()
	if _, err := os.Stat(empty); err != nil {
		t.Fatalf("a placeholder was removed while a sandbox ran: %v", err)
	}
	other.Close()
	w.Sweep()
	for p, want := range map[string]bool{empty: false, dir: false, used: true, "/etc/passwd": true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists %v, want %v", p, err == nil, want)
		}
	}
	if b, _ := os.ReadFile(w.lock); len(b) != 0 {
		t.Errorf("the record was kept: %q", b)
	}
}
