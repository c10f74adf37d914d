package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopx-dev/loopx/internal/errs"
)

func TestFindRoot(t *testing.T) {
	base := t.TempDir()
	mk := func(p string) string {
		full := filepath.Join(base, filepath.FromSlash(p))
		if err := os.MkdirAll(full, 0o755); err != nil {
			t.Fatal(err)
		}
		return full
	}
	state := mk("a/.loopx")
	mk("a/b/c")
	mk("s/loopx")
	os.WriteFile(filepath.Join(base, "s/loopx/loopx.cue"), []byte("project: name: \"s\"\n"), 0o644)
	mk("s/d")
	mk("n/loopx") // a loopx/ without *.cue files is no project
	for _, tc := range []struct{ from, want string }{
		{"a", filepath.Dir(state)}, {"a/b/c", filepath.Dir(state)}, {"s/d", filepath.Join(base, "s")}, {"s", filepath.Join(base, "s")},
	} {
		got, err := FindRoot(filepath.Join(base, filepath.FromSlash(tc.from)))
		if err != nil || got != tc.want {
			t.Errorf("FindRoot(%s) = %s, %v; want %s", tc.from, got, err, tc.want)
		}
	}
	if _, err := FindRoot(filepath.Join(base, "n")); !errors.Is(err, os.ErrNotExist) || errs.CodeOf(err) != "no_project" {
		t.Errorf("no project: %v", err)
	}
}
