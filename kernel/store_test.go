package kernel

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
)

func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func openT(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir, Options{Now: fixedClock(t0), LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestUpdate_RollsBackOnError(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	defer s.Close()
	boom := errors.New("boom")
	err := s.Update(func(tx *Tx) error {
		if _, err := tx.AddTodo(records.Todo{Goal: "g1", Title: "a"}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	_ = s.View(func(tx *Tx) error {
		ts, err := tx.Todos("g1")
		if err != nil || len(ts) != 0 {
			t.Fatalf("todos after rollback = %v, %v", ts, err)
		}
		return nil
	})
	if rev, _ := s.Revision(); rev != 0 {
		t.Fatalf("revision after rollback = %d", rev)
	}
}

func TestUpdate_RevisionsAndGoalTouch(t *testing.T) {
	s := openT(t, t.TempDir())
	defer s.Close()
	var id string
	for i := 0; i < 3; i++ {
		if err := s.Update(func(tx *Tx) error {
			td, err := tx.AddTodo(records.Todo{Goal: "g1", Title: fmt.Sprint(i)})
			id = td.ID
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	// A read-only Update does not bump the revision.
	if err := s.Update(func(tx *Tx) error { _, err := tx.Todo(id); return err }); err != nil {
		t.Fatal(err)
	}
	rev, _ := s.Revision()
	if rev != 3 {
		t.Fatalf("revision = %d, want 3", rev)
	}
	_ = s.View(func(tx *Tx) error {
		g, _ := tx.Goal("g1")
		if g.Rev != 3 || g.Status != records.GoalActive {
			t.Fatalf("goal = %+v", g)
		}
		g2, _ := tx.Goal("g2")
		if g2.Rev != 0 {
			t.Fatalf("untouched goal rev = %d", g2.Rev)
		}
		return nil
	})
}

func TestIDs_UniqueAndPrefixed(t *testing.T) {
	s := openT(t, t.TempDir())
	defer s.Close()
	seen := map[string]bool{}
	err := s.Update(func(tx *Tx) error {
		for i := 0; i < 2000; i++ {
			td, err := tx.AddTodo(records.Todo{Goal: "g", Title: "x"})
			if err != nil {
				return err
			}
			if !strings.HasPrefix(td.ID, "t-") || seen[td.ID] {
				return fmt.Errorf("bad or duplicate id %q", td.ID)
			}
			seen[td.ID] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpen_SecondOpenWaitsForLock(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	_, err := Open(dir, Options{LockTimeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("second open: %v, want ErrLockTimeout", err)
	}
	s.Close()
	s2 := openT(t, dir)
	s2.Close()
}

func TestOpen_CorruptFileIsStoreError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, DBFile), []byte("*3\r\n$3\r\nset\r\ngarbage-not-resp\x00\x01\n\n*9\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir, Options{LockTimeout: time.Second})
	if !IsStoreError(err) || errs.Exit(err) != errs.ExitInternal || !strings.Contains(err.Error(), DBFile) {
		t.Fatalf("err = %v, want a StoreError naming the file", err)
	}
}

func TestOpen_NewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	_ = s.db.Update(func(tx *bunTx) error { _, _, err := tx.Set(keySchema, strconv.Itoa(SchemaVersion+1), nil); return err })
	s.Close()
	_, err := Open(dir, Options{LockTimeout: time.Second})
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("err = %v", err)
	}
}

// TestUpdate_OtherGoalsRecordsUntouched: 50 updates to goal 2 leave goal 1's records
// byte-identical (the multi-process variant is a CLI test).
func TestUpdate_OtherGoalsRecordsUntouched(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	defer s.Close()
	if err := s.Update(func(tx *Tx) error {
		for i := 0; i < 5; i++ {
			if _, err := tx.AddTodo(records.Todo{Goal: "g1", Title: fmt.Sprint("g1-", i)}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	before := dumpPrefix(t, s, "todo:g1:") + dumpPrefix(t, s, "goal:g1")
	for i := 0; i < 50; i++ {
		if err := s.Update(func(tx *Tx) error {
			_, err := tx.AddTodo(records.Todo{Goal: "g2", Title: fmt.Sprint(i)})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	after := dumpPrefix(t, s, "todo:g1:") + dumpPrefix(t, s, "goal:g1")
	if before != after {
		t.Fatalf("goal 1 changed:\n%s\n---\n%s", before, after)
	}
}

func dumpPrefix(t *testing.T, s *Store, prefix string) string {
	var b strings.Builder
	_ = s.db.View(func(tx *bunTx) error {
		return tx.AscendGreaterOrEqual("", prefix, func(k, v string) bool {
			if !strings.HasPrefix(k, prefix) {
				return false
			}
			fmt.Fprintf(&b, "%s=%s\n", k, v)
			return true
		})
	})
	return b.String()
}

// TestCrash_Kill9ThenTornTail: a child process writes acknowledged
// transactions until it is killed with SIGKILL; then the last 10 bytes of the
// file are cut. Open keeps every complete transaction, reports the torn tail,
// and every transaction the child acknowledged (printed after commit) before
// the cut region is still there.
func TestCrash_Kill9ThenTornTail(t *testing.T) {
	if os.Getenv("LOOPX_KERNEL_CRASH_CHILD") != "" {
		crashChild(os.Getenv("LOOPX_KERNEL_CRASH_CHILD"))
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrash_Kill9ThenTornTail$")
	cmd.Env = append(os.Environ(), "LOOPX_KERNEL_CRASH_CHILD="+dir)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Each line is an id the child printed after its commit returned.
	var acked []string
	sc := bufio.NewScanner(pipe)
	for len(acked) < 200 && sc.Scan() {
		if id := strings.TrimSpace(sc.Text()); strings.HasPrefix(id, "t-") {
			acked = append(acked, id)
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if len(acked) < 200 {
		t.Fatalf("child acknowledged only %d writes", len(acked))
	}
	// Everything acknowledged before the kill survives a clean reopen,
	// its audit event in the event log included.
	s := openT(t, dir)
	for _, id := range acked {
		if err := s.View(func(tx *Tx) error { _, err := tx.Todo(id); return err }); err != nil {
			t.Fatalf("acknowledged todo %s lost: %v", id, err)
		}
	}
	audited := map[string]bool{}
	if err := s.View(func(tx *Tx) error {
		return tx.Events(func(ev records.Event) bool { audited[ev.Subject] = ev.Kind == "todo.added"; return true })
	}); err != nil {
		t.Fatal(err)
	}
	for _, id := range acked {
		if !audited[id] {
			t.Fatalf("acknowledged todo %s has no todo.added event in %s", id, EventsFile)
		}
	}
	if _, err := s.VerifyEvents(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Cut the last 10 bytes: the last transaction is torn.
	path := filepath.Join(dir, DBFile)
	fi, _ := os.Stat(path)
	if err := os.Truncate(path, fi.Size()-10); err != nil {
		t.Fatal(err)
	}
	s = openT(t, dir)
	defer s.Close()
	if s.Recovered() == nil || s.Recovered().DroppedBytes <= 0 {
		t.Fatalf("torn tail not reported: %+v", s.Recovered())
	}
	if rec, err := s.LastRecovery(); err != nil || rec == nil {
		t.Fatalf("recovery not kept for doctor: %v %v", rec, err)
	}
	lost := 0
	for _, id := range acked {
		if err := s.View(func(tx *Tx) error { _, err := tx.Todo(id); return err }); err != nil {
			lost++
		}
	}
	if lost > 1 {
		t.Fatalf("%d acknowledged todos lost after cutting one transaction", lost)
	}
}

func crashChild(dir string) {
	s, err := Open(dir, Options{LockTimeout: 5 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for i := 0; ; i++ {
		var id string
		if err := s.Update(func(tx *Tx) error {
			td, err := tx.AddTodo(records.Todo{Goal: "g", Title: fmt.Sprint("todo ", i)})
			id = td.ID
			return err
		}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(id)
	}
}

// TestTornTransaction_CompletedFromJournal: a transaction whose records were
// only partly written (its tail cut) is completed on open from its journal
// record — never left half-applied.
func TestTornTransaction_CompletedFromJournal(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	path := s.Path()
	fi, _ := os.Stat(path)
	before := fi.Size()
	var ids []string
	if err := s.Update(func(tx *Tx) error {
		for i := 0; i < 20; i++ {
			td, err := tx.AddTodo(records.Todo{Goal: "g", Title: fmt.Sprint("todo ", i)})
			if err != nil {
				return err
			}
			ids = append(ids, td.ID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	fi, _ = os.Stat(path)
	grown := fi.Size() - before
	// Cut a quarter of what the transaction wrote: inside its second commit.
	if err := os.Truncate(path, fi.Size()-grown/4); err != nil {
		t.Fatal(err)
	}
	s = openT(t, dir)
	defer s.Close()
	if r := s.Recovered(); r == nil || !r.Completed {
		t.Fatalf("recovery = %+v, want a completed transaction", r)
	}
	err := s.View(func(tx *Tx) error {
		for _, id := range ids {
			if _, err := tx.Todo(id); err != nil {
				return err
			}
		}
		ts, err := tx.Todos("g")
		if len(ts) != 20 {
			return fmt.Errorf("%d todos", len(ts))
		}
		return err
	})
	if err != nil {
		t.Fatalf("after completing the torn transaction: %v", err)
	}
	if rev, _ := s.Revision(); rev < 1 {
		t.Fatalf("revision %d", rev)
	}
	// A crash leaves records as they were before: no edit to report.
	if kinds := eventKinds(t, s); kinds["store.record_restored"] > 0 {
		t.Fatalf("a crash's repair reported as an edit: %v", kinds)
	}
}

// eventKinds counts the store's audit events by kind.
func eventKinds(t *testing.T, s *Store) map[string]int {
	t.Helper()
	out := map[string]int{}
	if err := s.View(func(tx *Tx) error {
		return tx.Events(func(ev records.Event) bool { out[ev.Kind]++; return true })
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOpen_JournalRedoOverAnEditIsAudited: a record the last transaction
// wrote, edited in state.db afterwards, is put back from the journal on
// open, and an event names the record with what was there (escaped,
// bounded) and what was put back.
func TestOpen_JournalRedoOverAnEditIsAudited(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	var id string
	if err := s.Update(func(tx *Tx) error {
		td, err := tx.AddTodo(records.Todo{Goal: "g", Title: "before"})
		id = td.ID
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(func(tx *Tx) error {
		td, err := tx.Todo(id)
		if err != nil {
			return err
		}
		td.Title = "written"
		return tx.putJSON(keyTodo("g", id), td)
	}); err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	closeNoShrink(s)
	key := keyTodo("g", id)
	forged := `{"id":"` + id + `","goal":"g","title":"forged` + "\x1b[2J" + strings.Repeat("x", 400) + `","kind":"task","status":"done"}`
	db, err := buntdb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bunTx) error { _, _, err := tx.Set(key, wrap(key, forged), nil); return err }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s = openT(t, dir)
	defer s.Close()
	var got *records.Event
	_ = s.View(func(tx *Tx) error {
		return tx.Events(func(ev records.Event) bool {
			if ev.Kind == "store.record_restored" {
				got = &ev
			}
			return true
		})
	})
	if got == nil || got.Subject != key {
		t.Fatalf("no store.record_restored naming %s: %+v", key, got)
	}
	if len(got.Message) > 1200 || strings.ContainsRune(got.Message, 0x1b) || !strings.Contains(got.Message, `forged\x1b[2J`) || !strings.Contains(got.Message, "bytes more") {
		t.Fatalf("message not escaped and bounded: %q", got.Message)
	}
	_ = s.View(func(tx *Tx) error {
		td, err := tx.Todo(id)
		if err != nil || td.Title != "written" {
			t.Fatalf("after the redo: %+v %v", td, err)
		}
		return nil
	})
}

func TestVerify_FindsRecordsThatDoNotDecode(t *testing.T) {
	s := openT(t, t.TempDir())
	defer s.Close()
	if err := s.Update(func(tx *Tx) error { _, err := tx.AddTodo(records.Todo{Goal: "g", Title: "ok"}); return err }); err != nil {
		t.Fatal(err)
	}
	if bad, err := s.Verify(); err != nil || len(bad) != 0 {
		t.Fatalf("healthy store: %v %v", bad, err)
	}
	_ = s.db.Update(func(tx *bunTx) error { _, _, err := tx.Set("todo:g:t-dead", `{"id": !broken`, nil); return err })
	if bad, err := s.Verify(); err != nil || len(bad) != 1 || bad[0] != "todo:g:t-dead" {
		t.Fatalf("damaged store: %v %v", bad, err)
	}
}

// TestLock_WaiterGetsItAndAnAbandonedWaiterLetsGo: an Open waiting on a
// held lock gets it once the holder closes; an Open that gave up (its
// timeout passed) never keeps the lock it may get later.
func TestLock_WaiterGetsItAndAnAbandonedWaiterLetsGo(t *testing.T) {
	dir := t.TempDir()
	holder := openT(t, dir)
	if _, err := Open(dir, Options{Now: fixedClock(t0), LockTimeout: time.Millisecond}); !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("open of a held store: %v, want ErrLockTimeout", err)
	}
	opened := make(chan error, 1)
	go func() {
		s, err := Open(dir, Options{Now: fixedClock(t0), LockTimeout: time.Minute})
		if err == nil {
			err = s.Close()
		}
		opened <- err
	}()
	if err := holder.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-opened; err != nil {
		t.Fatalf("the waiter: %v", err)
	}
	s, err := Open(dir, Options{Now: fixedClock(t0), LockTimeout: time.Minute})
	if err != nil {
		t.Fatalf("after the abandoned waiter: %v", err)
	}
	s.Close()
}
