package kernel

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/kernel/records"
)

// deniedHistory commits n permission.denied events (the hooks' spooled
// denials, imported 1,000 per transaction) and closes the store (which
// shrinks it). fsync is off while building.
func deniedHistory(b *testing.B, dir string, n int) {
	b.Helper()
	s, err := Open(dir, Options{Now: fixedClock(t0)})
	if err != nil {
		b.Fatal(err)
	}
	var cfg buntdb.Config
	_ = s.db.ReadConfig(&cfg)
	cfg.SyncPolicy = buntdb.Never
	_ = s.db.SetConfig(cfg)
	if err := s.Update(func(tx *Tx) error {
		for i := 0; i < 50; i++ {
			if _, err := tx.AddTodo(records.Todo{Goal: "g", Title: fmt.Sprint("todo ", i)}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	for done := 0; done < n; done += 1000 {
		if err := s.Update(func(tx *Tx) error {
			for i := done; i < done+1000 && i < n; i++ {
				if err := tx.AppendEvent(records.Event{Kind: "permission.denied", Goal: "g", Actor: "a1", Subject: fmt.Sprintf("d-%08d", i),
					Message: "Write .loopx/state.db: protected path",
					Data:    map[string]any{"tool": "Write", "action": "write", "codes": []string{"protected_path"}, "verdict": "deny"}}); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	// One ordinary write last, as after any import.
	if err := s.Update(func(tx *Tx) error { _, err := tx.AddTodo(records.Todo{Goal: "g", Title: "last"}); return err }); err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWrite_AfterEvents measures that writes do not slow
// with 100,000 audit events: one whole write as a CLI process does it (open,
// one transaction adding a todo and its event, close) on a store with no
// audit events and on one with 100,000. The budget is ≤ 1.2×. Sizes of
// state.db and events.log are reported in MB.
func BenchmarkWrite_AfterEvents(b *testing.B) {
	for _, n := range []int{0, 100000} {
		dir := b.TempDir()
		deniedHistory(b, dir, n)
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, err := Open(dir, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Update(func(tx *Tx) error {
					_, err := tx.AddTodo(records.Todo{Goal: "g", Title: "one more"})
					return err
				}); err != nil {
					b.Fatal(err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(fileSize(b, filepath.Join(dir, DBFile)))/1e6, "db-MB")
			b.ReportMetric(float64(fileSize(b, filepath.Join(dir, EventsFile)))/1e6, "log-MB")
		})
	}
}

// BenchmarkOpen_Events measures Open and close (no write) of a store with
// 0, 10,000 and 100,000 audit events: Open reads the end of the event log
// only, so its cost does not grow with the history.
func BenchmarkOpen_Events(b *testing.B) {
	for _, n := range []int{0, 10000, 100000} {
		dir := b.TempDir()
		deniedHistory(b, dir, n)
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, err := Open(dir, Options{Now: func() time.Time { return t0 }})
				if err != nil {
					b.Fatal(err)
				}
				closeNoShrink(s)
			}
		})
	}
}
