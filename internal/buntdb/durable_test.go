package buntdb

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/loopx-dev/loopx/internal/fsync"
)

var errDisk = errors.New("injected: input/output error")

// disk fails the next fail flushes (-1: every one) and records the names
// of the files it was asked to flush.
type disk struct {
	mu      sync.Mutex
	fail    int
	flushed []string
}

func (d *disk) Sync(f *os.File) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.flushed = append(d.flushed, filepath.Base(f.Name()))
	if d.fail != 0 {
		if d.fail > 0 {
			d.fail--
		}
		return errDisk
	}
	return f.Sync()
}

func openAlways(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg Config
	if err := db.ReadConfig(&cfg); err != nil {
		t.Fatal(err)
	}
	cfg.SyncPolicy = Always
	if err := db.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	return db
}

func set(db *DB, k, v string) error {
	return db.Update(func(tx *Tx) error {
		_, _, err := tx.Set(k, v, nil)
		return err
	})
}

func get(db *DB, k string) (string, error) {
	var v string
	err := db.View(func(tx *Tx) error {
		var err error
		v, err = tx.Get(k)
		return err
	})
	return v, err
}

// TestCommit_FailedFlushIsRefusedAndUndone: a commit whose flush fails
// returns the flush's error, its change is not visible, and the file no
// longer holds it — a later open does not bring a refused write back.
func TestCommit_FailedFlushIsRefusedAndUndone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db := openAlways(t, path)
	if err := set(db, "a", "1"); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	d := &disk{fail: 1}
	restore := fsync.Use(d)
	err := set(db, "b", "2")
	restore()
	if !errors.Is(err, errDisk) {
		t.Fatalf("commit = %v, want the flush's error", err)
	}
	if _, err := get(db, "b"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a refused write is visible: %v", err)
	}
	after, _ := os.Stat(path)
	if after.Size() != before.Size() {
		t.Fatalf("file %d bytes after the refused commit, want %d", after.Size(), before.Size())
	}
	// The cut was flushed, so the database takes writes again.
	if err := set(db, "c", "3"); err != nil {
		t.Fatalf("a write after an undone refusal: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openAlways(t, path)
	defer db.Close()
	for k, want := range map[string]string{"a": "1", "b": "", "c": "3"} {
		got, err := get(db, k)
		if want == "" {
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("after reopen %s = %q, %v; the refused write came back", k, got, err)
			}
			continue
		}
		if got != want {
			t.Fatalf("after reopen %s = %q, %v; want %q", k, got, err, want)
		}
	}
}

// TestCommit_UndoThatFailsStopsWrites: when the undo's own flush fails
// too, the file may hold the refused write, so every later write
// transaction is refused with ErrFailed until the database is reopened.
func TestCommit_UndoThatFailsStopsWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db := openAlways(t, path)
	defer db.Close()
	restore := fsync.Use(&disk{fail: -1})
	err := set(db, "b", "2")
	restore()
	if !errors.Is(err, errDisk) {
		t.Fatalf("commit = %v, want the flush's error", err)
	}
	if err := set(db, "c", "3"); !errors.Is(err, ErrFailed) {
		t.Fatalf("a write after a failed undo = %v, want ErrFailed", err)
	}
	if _, err := get(db, "b"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("reads still answer from memory without the refused write: %v", err)
	}
}

// TestClose_ReturnsTheFlushError: the last flush's error is the caller's.
func TestClose_ReturnsTheFlushError(t *testing.T) {
	db := openAlways(t, filepath.Join(t.TempDir(), "state.db"))
	restore := fsync.Use(&disk{fail: 1})
	err := db.Close()
	restore()
	if !errors.Is(err, errDisk) {
		t.Fatalf("Close = %v, want the flush's error", err)
	}
}

// TestShrink_FlushesTheNewFileAndItsDirectory: the shrunk file is flushed
// before it is renamed over the store, and the directory after.
func TestShrink_FlushesTheNewFileAndItsDirectory(t *testing.T) {
	dir := t.TempDir()
	db := openAlways(t, filepath.Join(dir, "state.db"))
	defer db.Close()
	for i := 0; i < 10; i++ {
		if err := set(db, "k", string(rune('a'+i))); err != nil {
			t.Fatal(err)
		}
	}
	d := &disk{}
	restore := fsync.Use(d)
	err := db.Shrink()
	restore()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"state.db.tmp", filepath.Base(dir)}
	if len(d.flushed) != 2 || d.flushed[0] != want[0] || d.flushed[1] != want[1] {
		t.Fatalf("flushed %v, want %v", d.flushed, want)
	}
}
