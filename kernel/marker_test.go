package kernel

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopx-dev/loopx/kernel/records"
)

// TestUpdate_PublishesRevisionMarker: every committed Update that wrote
// something replaces .loopx/state.rev with the new revision; a read-only
// Update and a rolled-back one leave it alone, and no temp file is left.
func TestUpdate_PublishesRevisionMarker(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	defer s.Close()
	if _, err := ReadRevFile(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("before any commit: err = %v, want not exist", err)
	}
	for want := uint64(1); want <= 2; want++ {
		if err := s.Update(func(tx *Tx) error { _, err := tx.AddTodo(records.Todo{Goal: "g1", Title: "a"}); return err }); err != nil {
			t.Fatal(err)
		}
		if rev, err := ReadRevFile(dir); err != nil || rev != want {
			t.Fatalf("marker = %d, %v; want %d", rev, err, want)
		}
	}
	fi, _ := os.Stat(filepath.Join(dir, RevFile))
	if err := s.Update(func(tx *Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	_ = s.Update(func(tx *Tx) error {
		_, _ = tx.AddTodo(records.Todo{Goal: "g1", Title: "b"})
		return errors.New("roll back")
	})
	fi2, _ := os.Stat(filepath.Join(dir, RevFile))
	if rev, _ := ReadRevFile(dir); rev != 2 || !os.SameFile(fi, fi2) {
		t.Fatalf("read-only or rolled-back Update rewrote the marker: rev %d, same file %v", rev, os.SameFile(fi, fi2))
	}
	if ents, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(ents) != 0 {
		t.Fatalf("temp marker left behind: %v", ents)
	}
	if err := os.WriteFile(filepath.Join(dir, RevFile), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRevFile(dir); err == nil {
		t.Fatal("a malformed marker read without error")
	}
}
