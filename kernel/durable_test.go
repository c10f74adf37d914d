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
// armed (EventsFile or DBFile), once per arm, as a failing or full disk
// does; flushes elsewhere (other tests' stores) pass through.
type failingDisk struct {
	dir   string
	mu    sync.Mutex
	armed string
}

func (d *failingDisk) arm(name string) {
	d.mu.Lock()
	d.armed = name
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
	if d.armed != "" && strings.HasPrefix(name, d.dir) && filepath.Base(name) == d.armed {
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
	d := &failingDisk{dir: dir}
	restore := fsync.Use(d)
	defer restore()
	s := openT(t, dir)
	acked, refused := map[string]bool{}, map[string]bool{}
	for i := 0; i < 30; i++ {
		switch i % 3 {
		case 1:
			d.arm(EventsFile)
		case 2:
			d.arm(DBFile)
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
	if len(acked) != 10 || len(refused) != 20 {
		t.Fatalf("%d acknowledged, %d refused; want 10 and 20", len(acked), len(refused))
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
