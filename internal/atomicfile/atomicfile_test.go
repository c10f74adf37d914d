package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopx-dev/loopx/internal/fsync"
	"github.com/loopx-dev/loopx/internal/nofollow"
)

func TestWrite_ReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	for _, want := range []string{"one", "two"} {
		if err := Write(p, []byte(want)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left %v", ents)
	}
}

func TestWrite_MissingDirFailsAndChangesNothing(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "no", "f"), []byte("x")); err == nil {
		t.Fatal("wrote into a missing directory")
	}
}

// TestWrite_LinkedDirectoryIsRefused: a symbolic link at the file's
// directory (Write) or at any directory below base (WriteBelow) is refused
// with a *nofollow.LinkError naming it, and the directory it points to is
// left as it was; a link at the file itself is replaced, not written
// through.
func TestWrite_LinkedDirectoryIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		link  string // below base, to outside
		write func(base string) error
	}{
		{"Write into a linked directory", "d", func(b string) error { return Write(filepath.Join(b, "d", "f.json"), []byte("new")) }},
		{"WriteBelow into a linked directory", "a", func(b string) error {
			return WriteBelow(b, filepath.Join("a", "f.json"), []byte("new"))
		}},
		{"WriteBelow below a linked directory", "a", func(b string) error {
			return WriteBelow(b, filepath.Join("a", "b", "f.json"), []byte("new"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, outside := t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Join(outside, "b"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(outside, "f.json"), []byte("the user's"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(base, tc.link)); err != nil {
				t.Fatal(err)
			}
			err := tc.write(base)
			var le *nofollow.LinkError
			if !errors.As(err, &le) || le.Path != filepath.Join(base, tc.link) {
				t.Fatalf("err %v, want a link at %s", err, tc.link)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "f.json")); string(b) != "the user's" {
				t.Fatalf("the target changed: %q", b)
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 2 {
				t.Fatalf("wrote beside the target: %v", ents)
			}
			if ents, _ := os.ReadDir(filepath.Join(outside, "b")); len(ents) != 0 {
				t.Fatalf("wrote below the target: %v", ents)
			}
		})
	}
}

// TestWrite_LinkAtTheFileIsReplaced: a link at the file's own name is
// replaced by the file; its target stays as it was.
func TestWrite_LinkAtTheFileIsReplaced(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("the user's"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "f.json")
	if err := os.Symlink(victim, p); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("f.json: %v, %v", fi, err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "the user's" {
		t.Fatalf("the target changed: %q", b)
	}
}

// failAll fails every flush, as a failing disk does.
type failAll struct{}

func (failAll) Sync(*os.File) error { return errors.New("injected: input/output error") }

// TestWrite_FailedFlushIsAnErrorAndKeepsTheOldContent: the new content is
// flushed before the rename, so a flush that fails leaves the old file in
// place (and no temp file) and says so, instead of acknowledging a write a
// power loss could undo.
func TestWrite_FailedFlushIsAnErrorAndKeepsTheOldContent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "anchor.json")
	if err := Write(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	restore := fsync.Use(failAll{})
	err := Write(p, []byte("new"))
	restore()
	if err == nil {
		t.Fatal("a write whose flush failed was acknowledged")
	}
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Fatalf("content %q after a failed flush, want the old", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left %v", ents)
	}
}
