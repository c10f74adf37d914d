package kernel

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/kernel/records"
)

// TestStoreWriters_NeverFollowALink: a link an agent places where the
// kernel writes (the anchor directory's parents, buntdb's shrink temp
// name, state.db, state.lock) never makes it write elsewhere; the open
// that finds one at state.db or state.lock is refused with the
// *nofollow.LinkError and kept in the refusal log, which the next healthy
// open turns into a store.refused event.
func TestStoreWriters_NeverFollowALink(t *testing.T) {
	victim := func(t *testing.T) (dir, file string) {
		dir = t.TempDir()
		file = filepath.Join(dir, "victim.txt")
		if err := os.WriteFile(file, []byte("the user's own file\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir, file
	}
	untouched := func(t *testing.T, dir, file string) {
		t.Helper()
		if b, err := os.ReadFile(file); err != nil || string(b) != "the user's own file\n" {
			t.Errorf("the user's file was changed: %q, %v", b, err)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Errorf("the user's directory holds %d entries, want only victim.txt", len(ents))
		}
	}
	t.Run("anchor directory's parent", func(t *testing.T) {
		vdir, vfile := victim(t)
		home := t.TempDir()
		if err := os.Symlink(vdir, filepath.Join(home, "loopx")); err != nil {
			t.Fatal(err)
		}
		adir := filepath.Join(home, "loopx", "projects", "p-0123456789abcdef")
		_, err := Open(t.TempDir(), Options{Now: fixedClock(t0), AnchorDir: adir})
		if !errors.Is(err, nofollow.ErrLink) {
			t.Errorf("open with a linked state directory: %v, want a link refused", err)
		}
		untouched(t, vdir, vfile)
	})
	t.Run("shrink's temp name", func(t *testing.T) {
		vdir, vfile := victim(t)
		dir := t.TempDir()
		s := openT(t, dir)
		defer s.Close()
		if err := os.Symlink(vfile, filepath.Join(dir, DBFile+".tmp")); err != nil {
			t.Fatal(err)
		}
		if err := s.ShrinkWithBackup(); err != nil {
			t.Fatal(err)
		}
		untouched(t, vdir, vfile)
		if fi, err := os.Lstat(filepath.Join(dir, DBFile)); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("state.db after the shrink: %v, %v", fi, err)
		}
		if err := s.Update(func(tx *Tx) error { return tx.AppendEvent(records.Event{Kind: "test.after_shrink", Actor: "loopx"}) }); err != nil {
			t.Fatalf("a write after the shrink: %v", err)
		}
	})
	for _, name := range []string{DBFile, LockFile} {
		t.Run(name, func(t *testing.T) {
			vdir, vfile := victim(t)
			dir := t.TempDir()
			adir := filepath.Join(t.TempDir(), "anchor")
			o := Options{Now: fixedClock(t0), AnchorDir: adir}
			s, err := Open(dir, o)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			real := filepath.Join(t.TempDir(), name)
			if err := os.Rename(filepath.Join(dir, name), real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(vfile, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(dir, o); !errors.Is(err, nofollow.ErrLink) || !IsStoreError(err) {
				t.Fatalf("open with a linked %s: %v, want a StoreError of a link refused", name, err)
			}
			untouched(t, vdir, vfile)
			rs, _, err := ReadRefusals(adir)
			if err != nil || len(rs) != 1 || rs[0].Code != "link_refused" {
				t.Fatalf("refusal log: %+v, %v; want one link_refused line", rs, err)
			}
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(real, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			s, err = Open(dir, o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			found := false
			if err := s.View(func(tx *Tx) error {
				return tx.Events(func(e records.Event) bool {
					found = found || e.Kind == "store.refused" && e.Data["found"] == "link_refused"
					return true
				})
			}); err != nil {
				t.Fatal(err)
			}
			if !found {
				t.Error("no store.refused event of the link")
			}
		})
	}
}
