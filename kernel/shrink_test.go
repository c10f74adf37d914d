package kernel

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/kernel/records"
)

// writeHistory commits n transactions, each rewriting one of 50 todos of
// goal "g" (the shape of lease renewals): the live data stays small while
// the append-only file grows with n. fsync is off while building.
func writeHistory(tb testing.TB, s *Store, n int) {
	tb.Helper()
	var cfg buntdb.Config
	if err := s.db.ReadConfig(&cfg); err != nil {
		tb.Fatal(err)
	}
	cfg.SyncPolicy = buntdb.Never
	if err := s.db.SetConfig(cfg); err != nil {
		tb.Fatal(err)
	}
	var ids []string
	if err := s.Update(func(tx *Tx) error {
		for i := 0; i < 50; i++ {
			t, err := tx.AddTodo(records.Todo{Goal: "g", Title: fmt.Sprint("todo ", i)})
			if err != nil {
				return err
			}
			ids = append(ids, t.ID)
		}
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	// One transaction per lease change, as renewals are.
	for i := 0; i < n; i++ {
		if err := s.Update(func(tx *Tx) error {
			t := records.Todo{ID: ids[i%len(ids)], Goal: "g", Title: "todo", Kind: records.KindTask, Status: records.TodoClaimed,
				Lease: &records.Lease{Holder: "a1", Version: uint64(i + 1), Epoch: 1, AcquiredAt: t0, ExpiresAt: t0.Add(time.Hour)},
				Note:  fmt.Sprintf("renewed %d times, a note long enough to look like a real lease change", i)}
			return tx.putJSON(keyTodo("g", t.ID), t)
		}); err != nil {
			tb.Fatal(err)
		}
	}
	cfg.SyncPolicy = buntdb.Always
	if err := s.db.SetConfig(cfg); err != nil {
		tb.Fatal(err)
	}
}

// closeNoShrink closes s without the shrink Close may do.
func closeNoShrink(s *Store) {
	s.db.Close()
	s.lock.Unlock()
}

func fileSize(tb testing.TB, path string) int64 {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

func TestClose_ShrinksGrownFileKeepingBackup(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	writeHistory(t, s, 1500)
	path := s.Path()
	grown := fileSize(t, path)
	if grown <= ShrinkMinBytes {
		t.Fatalf("history of 10k records is only %d bytes", grown)
	}
	want := dumpPrefix(t, s, "")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	shrunk := fileSize(t, path)
	if shrunk >= grown/4 {
		t.Fatalf("not shrunk: %d → %d bytes", grown, shrunk)
	}
	if bak := fileSize(t, filepath.Join(dir, BackupFile)); bak != grown {
		t.Fatalf("backup is %d bytes, want the pre-shrink %d", bak, grown)
	}
	s = openT(t, dir)
	// The shrink base is the only key the shrink adds.
	base, _ := s.shrinkBase()
	got := strings.Replace(dumpPrefix(t, s, ""), fmt.Sprintf("%s=%d\n", keyShrinkBase, base), "", 1)
	if base == 0 || got != want {
		t.Fatalf("base %d; live records changed by the shrink", base)
	}
	// A small write does not shrink again: the file must double first.
	if err := s.Update(func(tx *Tx) error { _, err := tx.AddTodo(records.Todo{Goal: "g", Title: "x"}); return err }); err != nil {
		t.Fatal(err)
	}
	before := fileSize(t, path)
	r, err := s.ShrinkIfGrown()
	if err != nil || r.Shrunk || r.Before != before {
		t.Fatalf("second shrink: %+v %v", r, err)
	}
	s.Close()
	// The backup opens as a store with the event log (which a shrink
	// does not touch) beside it.
	bdir := t.TempDir()
	b, _ := os.ReadFile(filepath.Join(dir, BackupFile))
	if err := os.WriteFile(filepath.Join(bdir, DBFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	l, _ := os.ReadFile(filepath.Join(dir, EventsFile))
	if err := os.WriteFile(filepath.Join(bdir, EventsFile), l, 0o644); err != nil {
		t.Fatal(err)
	}
	// A copy elsewhere has no anchor: a human accepts it.
	bs, err := Open(bdir, Options{Now: fixedClock(t0), AcceptRollback: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeNoShrink(bs)
	if n := len(dumpPrefix(t, bs, "todo:")); n == 0 {
		t.Fatal("backup has no todos")
	}
}

func TestClose_SmallStoreIsNotShrunk(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	writeHistory(t, s, 100)
	before := fileSize(t, s.Path())
	s.Close()
	if after := fileSize(t, filepath.Join(dir, DBFile)); after < before {
		t.Fatalf("a %d-byte store was shrunk to %d", before, after)
	}
	if _, err := os.Stat(filepath.Join(dir, BackupFile)); !os.IsNotExist(err) {
		t.Fatalf("backup written for a small store: %v", err)
	}
}

// BenchmarkOpen_History measures Open (lock, replay, schema check) and
// close of a store whose history is 300 or 3,000 committed transactions,
// before and after a shrink. File sizes are reported as MB.
func BenchmarkOpen_History(b *testing.B) {
	// Each record is a real transaction (a block of the chain), so the
	// history is built at the speed of fsynced commits: kept short.
	for _, n := range []int{300, 3000} {
		dir := b.TempDir()
		s, err := Open(dir, Options{Now: fixedClock(t0)})
		if err != nil {
			b.Fatal(err)
		}
		writeHistory(b, s, n)
		closeNoShrink(s)
		open := func(b *testing.B) {
			size := fileSize(b, filepath.Join(dir, DBFile))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s, err := Open(dir, Options{})
				if err != nil {
					b.Fatal(err)
				}
				closeNoShrink(s)
			}
			b.ReportMetric(float64(size)/1e6, "MB")
		}
		b.Run(fmt.Sprintf("records=%d/before", n), open)
		s, err = Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := s.ShrinkWithBackup(); err != nil {
			b.Fatal(err)
		}
		b.Logf("records=%d: shrink took %v", n, time.Since(start))
		closeNoShrink(s)
		b.Run(fmt.Sprintf("records=%d/after", n), open)
	}
}
