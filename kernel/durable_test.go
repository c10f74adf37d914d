package kernel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/loopx-dev/loopx/internal/fsync"
	"github.com/loopx-dev/loopx/kernel/records"
)

var errDisk = errors.New("injected: input/output error")

// failingDisk fails the flush of the next file under dir whose name is
// armed (EventsFile, DBFile or AnchorFile), once per arm, as a failing or full disk
// does; flushes elsewhere (other tests' stores) pass through.
type failingDisk struct {
	dir   string
	mu    sync.Mutex
	armed string
}

func (d *failingDisk) arm(dir, name string) {
	d.mu.Lock()
	d.dir, d.armed = dir, name
	d.mu.Unlock()
}

func (d *failingDisk) Sync(f *os.File) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	// The file's real path: buntdb knows its file as /proc/self/fd/N.
	name, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil {
		name = f.Name()
	}
	// A file replaced by rename is flushed as its temp file, ".NAME.*".
	base := filepath.Base(name)
	if d.armed != "" && strings.HasPrefix(name, d.dir) && (base == d.armed || strings.HasPrefix(base, "."+d.armed+".")) {
		d.armed = ""
		return errDisk
	}
	return f.Sync()
}

// addTodo commits one transaction adding a todo titled title (its
// todo.added event with it).
func addTodo(s *Store, title string) error {
	return s.Update(func(tx *Tx) error {
		_, err := tx.AddTodo(records.Todo{Goal: "g1", Title: title})
		return err
	})
}

func todoTitles(t *testing.T, s *Store) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	if err := s.View(func(tx *Tx) error {
		ts, err := tx.Todos("g1")
		for _, td := range ts {
			out[td.Title] = true
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUpdate_FailedFlushIsRefusedAndNeverAppliedLater: a transaction whose
// event records or journal cannot be flushed returns the error and is not
// in the store — not in this process, not after a reopen — while every
// acknowledged transaction is. The test counts both.
func TestUpdate_FailedFlushIsRefusedAndNeverAppliedLater(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("names flushed files through /proc")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := &failingDisk{}
	restore := fsync.Use(d)
	defer restore()
	s := openT(t, dir)
	acked, refused := map[string]bool{}, map[string]bool{}
	adir, err := filepath.EvalSymlinks(s.AnchorDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 32; i++ {
		switch i % 4 {
		case 1:
			d.arm(dir, EventsFile)
		case 2:
			d.arm(dir, DBFile)
		case 3:
			d.arm(adir, AnchorFile)
		}
		title := fmt.Sprint("todo ", i)
		err := addTodo(s, title)
		switch {
		case err == nil:
			acked[title] = true
		case errors.Is(err, errDisk):
			refused[title] = true
		default:
			t.Fatalf("%s: %v", title, err)
		}
		if got := todoTitles(t, s); got[title] != acked[title] {
			t.Fatalf("%s: in the store %v, acknowledged %v", title, got[title], acked[title])
		}
	}
	if len(acked) != 8 || len(refused) != 24 {
		t.Fatalf("%d acknowledged, %d refused; want 8 and 24", len(acked), len(refused))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openT(t, dir)
	defer s.Close()
	got := todoTitles(t, s)
	lost, late := 0, 0
	for title := range acked {
		if !got[title] {
			lost++
		}
	}
	for title := range refused {
		if got[title] {
			late++
		}
	}
	t.Logf("writes acknowledged %d, refused %d; acknowledged writes lost %d, refused writes applied later %d", len(acked), len(refused), lost, late)
	if lost != 0 || late != 0 {
		t.Fatalf("acknowledged writes lost %d, refused writes applied later %d; want 0 and 0", lost, late)
	}
	if r := s.Recovered(); r != nil {
		t.Fatalf("the reopen had to repair %+v: a refused write left something behind", r)
	}
	if _, err := s.VerifyEvents(); err != nil {
		t.Fatal(err)
	}
	var adds int
	_ = s.View(func(tx *Tx) error {
		return tx.Events(func(ev records.Event) bool {
			if ev.Kind == "todo.added" {
				adds++
			}
			return true
		})
	})
	if adds != len(acked) {
		t.Fatalf("%d todo.added events, want one per acknowledged write (%d)", adds, len(acked))
	}
}

// TestOpen_CutsRecordsWrittenBeforeACrashBeforeTheJournal: a crash after a
// transaction's event records are durable but before its journal leaves
// records no commit followed: open cuts them (kept aside) and the
// transaction is not applied.
func TestOpen_CutsRecordsWrittenBeforeACrashBeforeTheJournal(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	if err := addTodo(s, "kept"); err != nil {
		t.Fatal(err)
	}
	s.crashBeforeJournal = func(journal) error { return errCrash }
	if err := addTodo(s, "crashed"); !errors.Is(err, errCrash) {
		t.Fatalf("crash: %v", err)
	}
	closeNoShrink(s)
	s = openT(t, dir)
	defer s.Close()
	if got := todoTitles(t, s); !got["kept"] || got["crashed"] {
		t.Fatalf("todos after the crash: %v", got)
	}
	if r := s.Recovered(); r == nil || r.EventsDropped == 0 {
		t.Fatalf("recovery = %+v, want the uncommitted records cut", r)
	}
	if _, err := s.VerifyEvents(); err != nil {
		t.Fatal(err)
	}
}

// TestUpdate_AnchorNotWrittenUndoesTheTransaction: a transaction whose
// anchor cannot be written is taken back and refused, so that no
// acknowledged write is unknown to the anchor (where putting state.db
// back to the anchored revision would roll it back unseen).
func TestUpdate_AnchorNotWrittenUndoesTheTransaction(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("names flushed files through /proc")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := openT(t, dir)
	if err := addTodo(s, "kept"); err != nil {
		t.Fatal(err)
	}
	revBefore, _ := s.Revision()
	adir, err := filepath.EvalSymlinks(s.AnchorDir())
	if err != nil {
		t.Fatal(err)
	}
	d := &failingDisk{}
	restore := fsync.Use(d)
	d.arm(adir, AnchorFile)
	err = addTodo(s, "refused")
	restore()
	if !errors.Is(err, errDisk) || !strings.Contains(err.Error(), "undone") {
		t.Fatalf("Update = %v, want the anchor's error, undone", err)
	}
	if got := todoTitles(t, s); !got["kept"] || got["refused"] {
		t.Fatalf("todos in this process after the undo: %v", got)
	}
	if rev, _ := s.Revision(); rev != revBefore {
		t.Fatalf("revision %d after the undo, want %d", rev, revBefore)
	}
	// The store takes writes again, on the chain the anchor knows.
	if err := addTodo(s, "after"); err != nil {
		t.Fatalf("a write after the undo: %v", err)
	}
	closeNoShrink(s)
	s = openT(t, dir)
	defer s.Close()
	if got := todoTitles(t, s); !got["kept"] || got["refused"] || !got["after"] {
		t.Fatalf("todos after a reopen: %v", got)
	}
	if r := s.Recovered(); r != nil {
		t.Fatalf("the reopen had to repair %+v", r)
	}
}
