package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/kernel/records"
)

var errCrash = errors.New("simulated crash")

// addEvents commits one transaction appending n events of goal g at clock t.
func addEvents(t testing.TB, s *Store, g string, n int) {
	t.Helper()
	if err := s.Update(func(tx *Tx) error {
		for i := 0; i < n; i++ {
			if err := tx.AppendEvent(records.Event{Kind: "test.event", Goal: g, Actor: "a1", Message: fmt.Sprint("event ", i)}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// eventSeqs lists the events' Seq in the order Events yields them.
func eventSeqs(t testing.TB, s *Store) ([]uint64, error) {
	t.Helper()
	var out []uint64
	err := s.View(func(tx *Tx) error {
		return tx.Events(func(ev records.Event) bool { out = append(out, ev.Seq); return true })
	})
	return out, err
}

func seqRange(from, to uint64) []uint64 {
	var out []uint64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func TestEventLog_AppendAndScan(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	addEvents(t, s, "g1", 3)
	// Inside a write transaction, its own events follow the committed ones.
	var inTx []uint64
	if err := s.Update(func(tx *Tx) error {
		if err := tx.AppendEvent(records.Event{Kind: "test.event", Goal: "g1"}); err != nil {
			return err
		}
		return tx.Events(func(ev records.Event) bool { inTx = append(inTx, ev.Seq); return true })
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(inTx) != "[1 2 3 4]" {
		t.Fatalf("events inside the transaction = %v", inTx)
	}
	// Events are not in state.db.
	if got := dumpPrefix(t, s, "event:"); got != "" {
		t.Fatalf("events in state.db: %s", got)
	}
	s.Close()
	s = openT(t, dir)
	defer s.Close()
	got, err := eventSeqs(t, s)
	if err != nil || fmt.Sprint(got) != "[1 2 3 4]" {
		t.Fatalf("events after reopen = %v, %v", got, err)
	}
	// Stopping early stops.
	n := 0
	_ = s.View(func(tx *Tx) error { return tx.Events(func(records.Event) bool { n++; return n < 2 }) })
	if n != 2 {
		t.Fatalf("fn called %d times after returning false", n)
	}
	b, _ := os.ReadFile(filepath.Join(dir, EventsFile))
	if lines := bytes.Count(b, []byte("\n")); lines != 4 {
		t.Fatalf("events.log has %d lines, want 4", lines)
	}
	if head, err := s.VerifyEvents(); err != nil || head != s.EventsHead() || head.Records != 4 || head.Next != 5 {
		t.Fatalf("verify = %+v, %v (head %+v)", head, err, s.EventsHead())
	}
	// A read-only transaction cannot append.
	if err := s.View(func(tx *Tx) error { return tx.AppendEvent(records.Event{Kind: "x"}) }); err == nil {
		t.Fatal("AppendEvent in a View succeeded")
	}
}

// crashInLogWrite commits a transaction of n events whose journal is
// durable but whose log records end after keep bytes (keep < 0: all but
// the last -keep bytes), as an older loopx that wrote the journal before
// the log could leave it when it died there, or a disk that lost the
// records' last bytes; the store is closed without any more writes.
func crashInLogWrite(t *testing.T, s *Store, n, keep int) {
	t.Helper()
	s.crashAt = func(j journal) error {
		k := keep
		if k < 0 {
			k = len(j.Log) + keep
		}
		k = min(k, len(j.Log))
		f, err := os.OpenFile(s.EventsPath(), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := f.Truncate(j.LogFrom.Size + int64(k)); err != nil {
			return err
		}
		return errCrash
	}
	if err := s.Update(func(tx *Tx) error {
		for i := 0; i < n; i++ {
			if err := tx.AppendEvent(records.Event{Kind: "test.crash", Goal: "g1"}); err != nil {
				return err
			}
		}
		_, err := tx.AddTodo(records.Todo{Goal: "g1", Title: "crashed"})
		return err
	}); !errors.Is(err, errCrash) {
		t.Fatalf("crash: %v", err)
	}
	closeNoShrink(s)
}

// TestEventLog_OpenRepairsTheTail: what a crash or an outside write can
// leave at the end of the log, and what Open does with it.
func TestEventLog_OpenRepairsTheTail(t *testing.T) {
	// The crashed transaction appends events 6, 7, 8 and a todo (seq 9)
	// with its todo.added event (10).
	crashed := append(seqRange(1, 8), 10)
	cases := []struct {
		name string
		// damage runs on a store of 5 committed events (seq 1..5, in two
		// transactions: 3 then 2) and closes it.
		damage func(t *testing.T, dir string, s *Store)
		// want: the events after open, or the error Open returns.
		want      []uint64
		refused   bool
		completed bool
		dropped   bool
		// txDone: the crashed transaction's records are there after open.
		txDone bool
	}{
		{name: "crash before the log write", damage: func(t *testing.T, dir string, s *Store) {
			crashInLogWrite(t, s, 3, 0)
		}, want: crashed, completed: true, txDone: true},
		{name: "crash inside a record (torn)", damage: func(t *testing.T, dir string, s *Store) {
			crashInLogWrite(t, s, 3, -17)
		}, want: crashed, completed: true, txDone: true},
		{name: "crash after the log write, before the records", damage: func(t *testing.T, dir string, s *Store) {
			crashInLogWrite(t, s, 3, 1<<30)
		}, want: crashed, txDone: true},
		{name: "garbage after the committed head", damage: func(t *testing.T, dir string, s *Store) {
			closeNoShrink(s)
			appendFile(t, filepath.Join(dir, EventsFile), []byte(`{"i":6,"prev":"x","event":{"seq":6,"kind":"fake"}} 00`+"\n"))
		}, want: seqRange(1, 5), dropped: true},
		{name: "zeros after the committed head", damage: func(t *testing.T, dir string, s *Store) {
			closeNoShrink(s)
			appendFile(t, filepath.Join(dir, EventsFile), make([]byte, 4096))
		}, want: seqRange(1, 5), dropped: true},
		// The last transaction's records damaged after its commit are
		// rewritten from its journal (what differs kept aside).
		{name: "truncated inside the last committed record", damage: func(t *testing.T, dir string, s *Store) {
			closeNoShrink(s)
			truncateBy(t, filepath.Join(dir, EventsFile), 10)
		}, want: seqRange(1, 5), completed: true},
		{name: "last record cut whole", damage: func(t *testing.T, dir string, s *Store) {
			closeNoShrink(s)
			b := readFile(t, filepath.Join(dir, EventsFile))
			i := bytes.LastIndexByte(b[:len(b)-1], '\n')
			truncateBy(t, filepath.Join(dir, EventsFile), len(b)-i-1)
		}, want: seqRange(1, 5), completed: true},
		{name: "last record zero-filled", damage: func(t *testing.T, dir string, s *Store) {
			closeNoShrink(s)
			p := filepath.Join(dir, EventsFile)
			b := readFile(t, p)
			for i := len(b) - 40; i < len(b); i++ {
				b[i] = 0
			}
			writeFile(t, p, b)
		}, want: seqRange(1, 5), completed: true, dropped: true},
		{name: "a byte flipped in the last record", damage: func(t *testing.T, dir string, s *Store) {
			closeNoShrink(s)
			p := filepath.Join(dir, EventsFile)
			b := readFile(t, p)
			b[len(b)-80] ^= 1
			writeFile(t, p, b)
		}, want: seqRange(1, 5), completed: true, dropped: true},
		// Damage reaching into earlier transactions is refused (inside
		// them, not at the end, readers find it: DamageInsideIsNamed).
		{name: "truncated into the transaction before", damage: func(t *testing.T, dir string, s *Store) {
			closeNoShrink(s)
			b := readFile(t, filepath.Join(dir, EventsFile))
			lines := bytes.SplitAfter(b, []byte("\n"))
			truncateBy(t, filepath.Join(dir, EventsFile), len(lines[3])+len(lines[4])+10)
		}, refused: true},
		// A forged prune: the first records replaced by a checkpoint padded
		// to their length, the rest (and the end) untouched.
		{name: "a forged checkpoint in place of the first records", damage: func(t *testing.T, dir string, s *Store) {
			closeNoShrink(s)
			p := filepath.Join(dir, EventsFile)
			b := readFile(t, p)
			lines := bytes.SplitAfter(b, []byte("\n"))
			n := len(lines[0]) + len(lines[1])
			r, _, why := parseRecord(lines[2][:len(lines[2])-1])
			if why != "" {
				t.Fatal(why)
			}
			forge := func(by string) []byte {
				line, _, err := encodeRecord(logRecord{I: 2, Checkpoint: &Checkpoint{Head: r.Prev, Through: 2, Pruned: 2, By: by}})
				if err != nil {
					t.Fatal(err)
				}
				return line
			}
			line := forge(strings.Repeat("x", n-len(forge(""))))
			if len(line) != n {
				t.Fatalf("forged %d bytes for %d", len(line), n)
			}
			writeFile(t, p, append(line, b[n:]...))
		}, refused: true},
		{name: "deleted", damage: func(t *testing.T, dir string, s *Store) {
			closeNoShrink(s)
			if err := os.Remove(filepath.Join(dir, EventsFile)); err != nil {
				t.Fatal(err)
			}
		}, refused: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openT(t, dir)
			addEvents(t, s, "g1", 3)
			addEvents(t, s, "g1", 2)
			c.damage(t, dir, s)
			s, err := Open(dir, Options{Now: fixedClock(t0), LockTimeout: 2 * time.Second})
			if c.refused {
				if err == nil || !errors.Is(err, ErrEventsDamaged) || !IsStoreError(err) {
					if err == nil {
						s.Close()
					}
					t.Fatalf("open = %v, want ErrEventsDamaged", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			r := s.Recovered()
			if r == nil || r.EventsCompleted != c.completed || (r.EventsDropped > 0) != c.dropped {
				t.Fatalf("recovery = %+v", r)
			}
			got, err := eventSeqs(t, s)
			if err != nil {
				t.Fatal(err)
			}
			// The recovery itself is audited after what was there.
			if len(got) != len(c.want)+1 || fmt.Sprint(got[:len(c.want)]) != fmt.Sprint(c.want) {
				t.Fatalf("events = %v, want %v then store.recovered", got, c.want)
			}
			if _, err := s.VerifyEvents(); err != nil {
				t.Fatal(err)
			}
			if c.txDone {
				if !r.Completed {
					t.Fatalf("transaction not completed: %+v", r)
				}
				if err := s.View(func(tx *Tx) error {
					ts, err := tx.Todos("g1")
					if err == nil && len(ts) != 1 {
						err = fmt.Errorf("%d todos", len(ts))
					}
					return err
				}); err != nil {
					t.Fatalf("crashed transaction not completed: %v", err)
				}
			}
			if c.dropped {
				if fi, err := os.Stat(filepath.Join(dir, eventsTornFile)); err != nil || fi.Size() != r.EventsDropped {
					t.Fatalf("torn bytes not kept: %v %v", fi, err)
				}
			}
		})
	}
}

// TestEventLog_AcceptKeepsVerifiableRecords: a log truncated below its
// committed head is refused; accepted (doctor --accept-store), its
// verifiable records stay and the store goes on from there, audited.
func TestEventLog_AcceptKeepsVerifiableRecords(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	addEvents(t, s, "g1", 4)
	addEvents(t, s, "g1", 1)
	closeNoShrink(s)
	// The last transaction's record and 10 bytes of the one before.
	b := readFile(t, filepath.Join(dir, EventsFile))
	truncateBy(t, filepath.Join(dir, EventsFile), len(b)-bytes.LastIndexByte(b[:len(b)-1], '\n')-1+10)
	if _, err := Open(dir, Options{Now: fixedClock(t0)}); !errors.Is(err, ErrEventsDamaged) {
		t.Fatalf("open = %v, want ErrEventsDamaged", err)
	}
	s, err := Open(dir, Options{Now: fixedClock(t0), AcceptRollback: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := eventSeqs(t, s)
	if err != nil || fmt.Sprint(got) != "[1 2 3 6]" {
		t.Fatalf("events = %v, %v", got, err)
	}
	if r := s.Recovered(); r == nil || r.EventsSalvaged == "" || r.EventsDropped == 0 {
		t.Fatalf("recovery = %+v", r)
	}
}

// TestEventLog_DamageInsideIsNamed: a changed or zeroed record in the
// middle passes Open (which reads only the end) but every reader of the
// history fails on it, naming the record.
func TestEventLog_DamageInsideIsNamed(t *testing.T) {
	for _, name := range []string{"flip", "zero", "swap"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := openT(t, dir)
			addEvents(t, s, "g1", 5)
			closeNoShrink(s)
			p := filepath.Join(dir, EventsFile)
			b := readFile(t, p)
			lines := bytes.SplitAfter(b, []byte("\n"))
			off := len(lines[0]) + len(lines[1]) // record 3
			switch name {
			case "flip":
				b[off+20] ^= 0x20
			case "zero":
				for i := off; i < off+len(lines[2])-1; i++ {
					b[i] = 0
				}
			case "swap":
				// Records 3 and 4 swapped: each checksum holds, the chain does not.
				b = bytes.Join([][]byte{lines[0], lines[1], lines[3], lines[2], lines[4]}, nil)
			}
			writeFile(t, p, b)
			s = openT(t, dir)
			defer s.Close()
			_, err := eventSeqs(t, s)
			var le *LogError
			if !errors.As(err, &le) || le.Record != 3 || !IsStoreError(err) {
				t.Fatalf("events: %v, want record 3 named", err)
			}
			if _, err := s.VerifyEvents(); !errors.As(err, &le) || le.Record != 3 {
				t.Fatalf("verify: %v", err)
			}
		})
	}
}

// TestEventLog_Prune: the prefix of reviewed events older than the
// instant is replaced by one checkpoint; an unreviewed event stops it; the
// kept records are the same bytes; a second prune folds the checkpoint.
func TestEventLog_Prune(t *testing.T) {
	cases := []struct {
		name       string
		before     time.Duration // after t0
		unreviewed uint64        // this seq is not reviewed (0: all are)
		pruned     int
		want       []uint64 // events left (the prune's own event not counted)
		unrev      int
	}{
		{name: "nothing older", before: 0, want: seqRange(1, 6)},
		{name: "the first day", before: 24 * time.Hour, pruned: 2, want: seqRange(3, 6)},
		{name: "two days", before: 48 * time.Hour, pruned: 4, want: seqRange(5, 6)},
		{name: "everything", before: 100 * time.Hour, pruned: 6, want: nil},
		{name: "an unreviewed event stops the prune", before: 48 * time.Hour, unreviewed: 2, pruned: 1, want: seqRange(2, 6), unrev: 3},
		{name: "the first unreviewed", before: 100 * time.Hour, unreviewed: 1, pruned: 0, want: seqRange(1, 6), unrev: 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			now := t0
			s, err := Open(dir, Options{Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for day := 0; day < 3; day++ {
				now = t0.Add(time.Duration(day) * 24 * time.Hour)
				addEvents(t, s, "g1", 2)
			}
			now = t0.Add(200 * time.Hour)
			before := readFile(t, s.EventsPath())
			var rep records.PruneReport
			if err := s.Update(func(tx *Tx) error {
				var err error
				rep, err = tx.PruneEvents(t0.Add(c.before), "human", func(ev records.Event) bool { return ev.Seq != c.unreviewed })
				if err != nil {
					return err
				}
				return tx.AppendEvent(records.Event{Kind: "events.pruned"})
			}); err != nil {
				t.Fatal(err)
			}
			if rep.Pruned != c.pruned || rep.Unreviewed != c.unrev {
				t.Fatalf("report = %+v", rep)
			}
			got, err := eventSeqs(t, s)
			if err != nil {
				t.Fatal(err)
			}
			want := append(append([]uint64{}, c.want...), 7)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("events = %v, want %v", got, want)
			}
			after := readFile(t, s.EventsPath())
			lines := bytes.SplitAfter(before, []byte("\n"))
			kept := bytes.Join(lines[c.pruned:], nil)
			if c.pruned > 0 {
				if !bytes.HasPrefix(after, []byte(`{"i":`+strconv.Itoa(c.pruned)+`,"prev":"","checkpoint":`)) {
					t.Fatalf("no checkpoint first: %.120s", after)
				}
				after = after[bytes.IndexByte(after, '\n')+1:]
			}
			if !bytes.HasPrefix(after, kept) {
				t.Fatal("the kept records were rewritten")
			}
			if _, err := s.VerifyEvents(); err != nil {
				t.Fatal(err)
			}
			s.Close()
			s = openT(t, dir)
			if got2, err := eventSeqs(t, s); err != nil || fmt.Sprint(got2) != fmt.Sprint(want) {
				t.Fatalf("after reopen: %v, %v", got2, err)
			}
			// A second prune of everything folds the checkpoint into a new one.
			if err := s.Update(func(tx *Tx) error {
				rep, err = tx.PruneEvents(t0.Add(1000*time.Hour), "human", func(records.Event) bool { return true })
				return err
			}); err != nil {
				t.Fatal(err)
			}
			b := readFile(t, s.EventsPath())
			if bytes.Count(b, []byte("\n")) != 1 || !bytes.Contains(b, []byte(`"pruned":7`)) {
				t.Fatalf("after pruning all: %s", b)
			}
			if _, err := s.VerifyEvents(); err != nil {
				t.Fatal(err)
			}
			addEvents(t, s, "g1", 1)
			s.Close()
			s = openT(t, dir)
			defer s.Close()
			if got, err := eventSeqs(t, s); err != nil || fmt.Sprint(got) != "[8]" {
				t.Fatalf("after a checkpoint alone and one more event: %v %v", got, err)
			}
			if _, err := s.VerifyEvents(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestEventLog_PruneCompletedAfterCrash: a prune whose journal committed
// but whose rewrite never happened is completed on open.
func TestEventLog_PruneCompletedAfterCrash(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	addEvents(t, s, "g1", 4)
	s.crashAt = func(journal) error { return errCrash }
	if err := s.Update(func(tx *Tx) error {
		_, err := tx.PruneEvents(t0.Add(time.Hour), "human", func(records.Event) bool { return true })
		return err
	}); !errors.Is(err, errCrash) {
		t.Fatal(err)
	}
	closeNoShrink(s)
	s = openT(t, dir)
	defer s.Close()
	if r := s.Recovered(); r == nil || !r.EventsCompleted {
		t.Fatalf("recovery = %+v", r)
	}
	got, err := eventSeqs(t, s)
	if err != nil || fmt.Sprint(got) != "[5]" { // only store.recovered
		t.Fatalf("events = %v, %v", got, err)
	}
	if !bytes.Contains(readFile(t, s.EventsPath()), []byte(`"checkpoint":{`)) {
		t.Fatal("no checkpoint")
	}
}

// oldStore builds a schema-1 store (events as event:<seq> keys in
// state.db, as loopx wrote them before the event log) with a todo and n
// events.
func oldStore(t *testing.T, dir string, n int) {
	t.Helper()
	db, err := buntdb.Open(filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *buntdb.Tx) error {
		set := func(k, v string) { _, _, _ = tx.Set(k, v, nil) }
		set(keySchema, "1")
		set(keyRev, "3")
		set(keySeq, strconv.Itoa(n+1))
		set(keyTodo("g1", "t-0001"), `{"id":"t-0001","goal":"g1","title":"old","kind":"task","status":"open","seq":1}`)
		set(keyRef("t-0001"), keyTodo("g1", "t-0001"))
		for i := 2; i <= n+1; i++ {
			set(keyEvent(uint64(i)), fmt.Sprintf(`{"seq":%d,"at":"2026-11-28T10:00:00Z","kind":"todo.added","goal":"g1","actor":"human","subject":"t-0001","message":"old event %d"}`, i, i))
		}
		set(keyJournal, `{"rev":3,"sets":[["meta:rev","3"]]}`)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestMigrate_Schema1EventsMoveToTheLog(t *testing.T) {
	dir := t.TempDir()
	oldStore(t, dir, 5)
	s := openT(t, dir)
	m := s.Migrated()
	if m == nil || m.From != 1 || m.To != SchemaVersion || m.Backup != "state.db.v1.bak" {
		t.Fatalf("migration = %+v", m)
	}
	if _, err := os.Stat(filepath.Join(dir, m.Backup)); err != nil {
		t.Fatal("no backup:", err)
	}
	if got := dumpPrefix(t, s, "event:"); got != "" {
		t.Fatalf("events left in state.db: %s", got)
	}
	var evs []records.Event
	if err := s.View(func(tx *Tx) error {
		return tx.Events(func(ev records.Event) bool { evs = append(evs, ev); return true })
	}); err != nil {
		t.Fatal(err)
	}
	if len(evs) != 6 || evs[0].Seq != 2 || evs[0].Message != "old event 2" || evs[5].Kind != "store.migrated" || evs[5].Seq != 7 {
		t.Fatalf("events = %+v", evs)
	}
	if !strings.Contains(evs[5].Message, "5 audit events moved to events.log") {
		t.Fatalf("message %q", evs[5].Message)
	}
	if v, _ := s.schema(); v != SchemaVersion {
		t.Fatalf("schema %d", v)
	}
	if err := s.View(func(tx *Tx) error { _, err := tx.Todo("t-0001"); return err }); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Opening again migrates nothing.
	s = openT(t, dir)
	defer s.Close()
	if s.Migrated() != nil {
		t.Fatal("migrated twice")
	}
	if got, _ := eventSeqs(t, s); len(got) != 6 {
		t.Fatalf("events after reopen: %v", got)
	}
	// The backup is the schema-1 store, still readable by buntdb.
	if b := readFile(t, filepath.Join(dir, m.Backup)); !bytes.Contains(b, []byte("old event 6")) {
		t.Fatal("backup lacks the old events")
	}
}

// TestMigrate_InterruptedIsResumed: a migration that wrote the log but
// died before the store's transaction, or after it but before the schema
// was written, is finished by the next open without losing or doubling an
// event.
func TestMigrate_InterruptedIsResumed(t *testing.T) {
	for _, stage := range []string{"log written", "keys deleted"} {
		t.Run(stage, func(t *testing.T) {
			dir := t.TempDir()
			oldStore(t, dir, 4)
			// Run the step by hand on a store opened below the kernel.
			db, err := buntdb.Open(filepath.Join(dir, DBFile))
			if err != nil {
				t.Fatal(err)
			}
			s := &Store{dir: dir, db: db, now: fixedClock(t0)}
			if _, err := migrateEventsToLog(s); err != nil {
				t.Fatal(err)
			}
			_ = db.Close()
			if stage == "log written" {
				// Undo the store's part: the keys are back, the journal old.
				if err := os.Remove(filepath.Join(dir, DBFile)); err != nil {
					t.Fatal(err)
				}
				oldStore(t, dir, 4)
			}
			s = openT(t, dir)
			defer s.Close()
			got, err := eventSeqs(t, s)
			if err != nil || fmt.Sprint(got) != "[2 3 4 5 6]" {
				t.Fatalf("events = %v, %v", got, err)
			}
		})
	}
}

func appendFile(t *testing.T, p string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func truncateBy(t *testing.T, p string, n int) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, fi.Size()-int64(n)); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
