package nofollow

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWriters_NeverWriteThroughALink: every writer, through openat2 and
// through the O_NOFOLLOW walk, refuses a symbolic link at the file or at
// a directory below base (and a hard link for an append) with a
// *LinkError naming it, and leaves the link's target as it was.
func TestWriters_NeverWriteThroughALink(t *testing.T) {
	for _, walk := range []bool{false, true} {
		for _, tc := range []struct {
			name  string
			place func(t *testing.T, base, outside string) // puts the link
			write func(base string) error
			found string // the link reported, relative to base
			hard  bool
		}{
			{"append to a linked file", linkAt2("log.jsonl", "victim"), func(b string) error { return AppendFile(b, "log.jsonl", []byte("x\n"), 0o644) }, "log.jsonl", false},
			{"append below a linked directory", linkAt2("spool", "."), func(b string) error { return AppendFile(b, "spool/denials.jsonl", []byte("x\n"), 0o644) }, "spool", false},
			{"write below a linked directory", linkAt2("inputs", "."), func(b string) error { return WriteFile(b, "inputs/ab/cd.json", []byte("{}"), 0o644) }, "inputs", false},
			{"mkdir below a linked directory", linkAt2("cache", "."), func(b string) error { return MkdirAll(b, "cache/x", 0o755) }, "cache", false},
			{"rename into a linked directory", linkAt2("d", "."), func(b string) error {
				if err := os.WriteFile(filepath.Join(b, "f"), nil, 0o644); err != nil {
					return err
				}
				return Rename(b, "f", "d/victim")
			}, "d", false},
			{"link into a linked directory", linkAt2("d", "."), func(b string) error {
				if err := os.WriteFile(filepath.Join(b, "f"), nil, 0o644); err != nil {
					return err
				}
				return Link(b, "f", "d/new")
			}, "d", false},
			{"remove below a linked directory", linkAt2("d", "."), func(b string) error { return RemoveAll(b, "d/victim") }, "d", false},
			{"list a linked directory", linkAt2("d", "."), func(b string) error { _, err := ReadDir(b, "d"); return err }, "d", false},
			{"append to a hard link", func(t *testing.T, base, outside string) {
				if err := os.Link(filepath.Join(outside, "victim"), filepath.Join(base, "log.jsonl")); err != nil {
					t.Fatal(err)
				}
			}, func(b string) error { return AppendFile(b, "log.jsonl", []byte("x\n"), 0o644) }, "log.jsonl", true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				forceWalk = walk
				defer func() { forceWalk = false }()
				base, outside := t.TempDir(), t.TempDir()
				victim := filepath.Join(outside, "victim")
				if err := os.WriteFile(victim, []byte("the user's\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				tc.place(t, base, outside)
				err := tc.write(base)
				var le *LinkError
				if !errors.As(err, &le) || !errors.Is(err, ErrLink) || le.Path != filepath.Join(base, tc.found) || le.Hard != tc.hard {
					t.Fatalf("walk=%v: err %v, want a link at %s", walk, err, tc.found)
				}
				if b, _ := os.ReadFile(victim); string(b) != "the user's\n" {
					t.Fatalf("the target changed: %q", b)
				}
				if ents, _ := os.ReadDir(outside); len(ents) != 1 {
					t.Fatalf("wrote beside the target: %v", ents)
				}
			})
		}
	}
}

// linkAt2 places a symbolic link at rel (below base) to name in outside.
func linkAt2(rel, name string) func(t *testing.T, base, outside string) {
	return func(t *testing.T, base, outside string) {
		if err := os.Symlink(filepath.Join(outside, name), filepath.Join(base, rel)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriters_WriteBelowBase: without links the writers do what their
// os counterparts do.
func TestWriters_WriteBelowBase(t *testing.T) {
	for _, walk := range []bool{false, true} {
		forceWalk = walk
		base := t.TempDir()
		if err := WriteFile(base, "a/b/c.json", []byte("one"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(base, "a/b/c.json", []byte("two"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := AppendFile(base, "a/log", []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := AppendFile(base, "a/log", []byte("2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Rename(base, "a/log", "a/b/log.1"); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(base, "a/b/c.json"))
		log, _ := os.ReadFile(filepath.Join(base, "a/b/log.1"))
		ents, _ := os.ReadDir(filepath.Join(base, "a/b"))
		if string(got) != "two" || string(log) != "1\n2\n" || len(ents) != 2 {
			t.Fatalf("walk=%v: c.json %q, log %q, entries %v", walk, got, log, ents)
		}
		if _, err := OpenFile(base, "../x", os.O_RDONLY, 0); err == nil {
			t.Fatal("opened a path above base")
		}
	}
	forceWalk = false
}

// TestRemoveAll_RemovesLinksNotTargets: a directory holding a symbolic
// link to a directory of the user's is removed with the link; the link's
// target and what it holds stay.
func TestRemoveAll_RemovesLinksNotTargets(t *testing.T) {
	for _, walk := range []bool{false, true} {
		forceWalk = walk
		base, outside := t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(outside, "victim"), []byte("the user's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(base, "b", "h", "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, "b", "h", "sub", "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(base, "b", "h", "out")); err != nil {
			t.Fatal(err)
		}
		if err := RemoveAll(base, "b/h"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(base, "b", "h")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("walk=%v: b/h still there: %v", walk, err)
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "victim")); string(b) != "the user's\n" {
			t.Fatalf("walk=%v: the target changed: %q", walk, b)
		}
		if err := RemoveAll(base, "b/none"); err != nil {
			t.Fatalf("walk=%v: missing: %v", walk, err)
		}
		if err := Link(base, "b", "c"); err == nil {
			t.Fatalf("walk=%v: linked a directory", walk)
		}
	}
	forceWalk = false
}

// TestFDPath_OpensTheFileHeldOpen: the path FDPath gives opens the file
// the descriptor holds, even after a link replaced its name.
func TestFDPath_OpensTheFileHeldOpen(t *testing.T) {
	base := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim.txt")
	if err := os.WriteFile(victim, []byte("the user's"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(base, "state.db", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Remove(filepath.Join(base, "state.db")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(base, "state.db")); err != nil {
		t.Fatal(err)
	}
	p, err := FDPath(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("loopx's"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "the user's" {
		t.Errorf("the link's target was written: %q", b)
	}
	var buf [16]byte
	n, _ := f.ReadAt(buf[:], 0)
	if string(buf[:n]) != "loopx's" {
		t.Errorf("the file held open reads %q, want what was written through %s", buf[:n], p)
	}
}
