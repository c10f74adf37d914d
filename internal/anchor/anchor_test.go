package anchor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDir(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	root := filepath.Join(t.TempDir(), "my proj")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()

	d, err := Dir(root)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d, filepath.Join(state, "loopx", "projects", "my_proj-")) {
		t.Errorf("Dir = %q, want under %s named my_proj-<hash>", d, state)
	}
	if viaLink, _ := Dir(link); viaLink != d {
		t.Errorf("through a symlink: %q, want the same anchor %q", viaLink, d)
	}
	if o, _ := Dir(other); o == d {
		t.Errorf("another project shares the anchor %q", d)
	}
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Errorf("Dir created %s", d)
	}
	e, err := Ensure(root)
	if err != nil || e != d {
		t.Fatalf("Ensure = %q, %v; want %q", e, err, d)
	}
	if fi, err := os.Stat(e); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("anchor mode = %v, %v; want 0700", fi.Mode().Perm(), err)
	}
	if _, err := Dir(filepath.Join(root, "missing")); err == nil {
		t.Error("a root that does not exist has an anchor")
	}
}

func TestStateHomeRelativeIgnored(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "relative/dir")
	d, err := Dir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d, filepath.Join(home, ".local", "state", "loopx", "projects")+string(filepath.Separator)) {
		t.Errorf("Dir = %q, want under $HOME/.local/state (a relative XDG_STATE_HOME is ignored)", d)
	}
}
