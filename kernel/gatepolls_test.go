package kernel

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/kernel/records"
)

// TestGatePolls_CountWithoutTouchingTheGoal: each refused poll counts in
// its (gate, agent) record, first and latest instants kept; another agent
// or another gate has its own record; a goal whose id prefixes another's
// lists only its own; and no poll moves the goal's revision (what the
// no-change check compares), while the store's revision grows by one per
// poll (a committed, chained transaction).
func TestGatePolls_CountWithoutTouchingTheGoal(t *testing.T) {
	now := t0
	s, err := Open(t.TempDir(), Options{Now: func() time.Time { return now }, LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var gate records.Gate
	if err := s.Update(func(tx *Tx) (err error) {
		gate, err = tx.AddGate(records.Gate{Goal: "g1", Question: "Merge the branch now?"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	goalRev := func() uint64 {
		var g records.GoalState
		if err := s.View(func(tx *Tx) (err error) { g, err = tx.Goal("g1"); return err }); err != nil {
			t.Fatal(err)
		}
		return g.Rev
	}
	rev0 := goalRev()
	for i, c := range []struct {
		goal, gate, agent string
		want              int64
	}{
		{"g1", gate.ID, "a1", 1},
		{"g1", gate.ID, "a1", 2},
		{"g1", gate.ID, "a2", 1},
		{"g1", gate.ID, "a1", 3},
		{"g1", "g1/merge", "a1", 1},
		{"g1-old", gate.ID, "a1", 1},
	} {
		now = t0.Add(time.Duration(i) * time.Minute)
		before, _ := s.Revision()
		var p records.GatePoll
		if err := s.Update(func(tx *Tx) (err error) { p, err = tx.CountGatePoll(c.goal, c.gate, c.agent); return err }); err != nil {
			t.Fatal(err)
		}
		if p.Count != c.want || !p.LastAt.Equal(now) || p.Goal != c.goal || p.Gate != c.gate || p.Agent != c.agent {
			t.Errorf("poll %d: %+v, want count %d at %v", i, p, c.want, now)
		}
		if after, _ := s.Revision(); after != before+1 {
			t.Errorf("poll %d: store revision %d -> %d", i, before, after)
		}
		if got := goalRev(); got != rev0 {
			t.Errorf("poll %d: goal revision %d -> %d: a poll counted as a change", i, rev0, got)
		}
	}
	var polls []records.GatePoll
	if err := s.View(func(tx *Tx) (err error) { polls, err = tx.GatePolls("g1"); return err }); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range polls {
		got = append(got, p.Gate+" "+p.Agent+" "+p.FirstAt.Sub(t0).String()+".."+p.LastAt.Sub(t0).String()+" "+strconv.FormatInt(p.Count, 10))
	}
	want := []string{gate.ID + " a1 0s..3m0s 3", gate.ID + " a2 2m0s..2m0s 1", "g1/merge a1 4m0s..4m0s 1"} // "g-…" < "g1/…"
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("GatePolls(g1) = %q, want %q", got, want)
	}
	if err := s.View(func(tx *Tx) (err error) { polls, err = tx.GatePolls(""); return err }); err != nil {
		t.Fatal(err)
	}
	if len(polls) != 4 || polls[0].Goal != "g1" || polls[3].Goal != "g1-old" {
		t.Fatalf("GatePolls(\"\") = %+v, want the 4 records by goal", polls)
	}
	if err := s.View(func(tx *Tx) error {
		p, err := tx.GatePoll("g1", gate.ID, "a3")
		if err != nil || p.Count != 0 {
			t.Errorf("a poll record never written: %+v %v", p, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestGatePolls_Chained: a poll record carries its checksum and counts in
// the chain's digest like every record: a count rewritten (even with a
// fresh checksum) or a record removed outside loopx is refused at open.
func TestGatePolls_Chained(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(tx *buntdb.Tx, k, v string) error
	}{
		{"a count reset with a fresh checksum", func(tx *buntdb.Tx, k, v string) error {
			_, _, err := tx.Set(k, wrap(k, strings.Replace(payloadOf(k, v), `"count":2`, `"count":1`, 1)), nil)
			return err
		}},
		{"the record removed", func(tx *buntdb.Tx, k, v string) error { _, err := tx.Delete(k); return err }},
		{"a record forged for another agent", func(tx *buntdb.Tx, k, v string) error {
			nk := strings.Replace(k, ":a1", ":a2", 1)
			_, _, err := tx.Set(nk, wrap(nk, strings.Replace(payloadOf(k, v), `"a1"`, `"a2"`, 1)), nil)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".loopx")
			s, err := openDir(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := s.Update(func(tx *Tx) error { _, err := tx.CountGatePoll("g1", "g-1", "a1"); return err }); err != nil {
					t.Fatal(err)
				}
			}
			// one more transaction, so that the journal does not restore the record
			if err := s.Update(func(tx *Tx) error { _, err := tx.AddTodo(records.Todo{Goal: "g1", Title: "t"}); return err }); err != nil {
				t.Fatal(err)
			}
			if bad, err := s.Verify(); err != nil || len(bad) > 0 {
				t.Fatalf("Verify = %v %v", bad, err)
			}
			closeNoShrink(s)
			db, err := buntdb.Open(filepath.Join(dir, DBFile))
			if err != nil {
				t.Fatal(err)
			}
			k := keyGatePoll("g1", "g-1", "a1")
			if err := db.Update(func(tx *buntdb.Tx) error {
				v, err := tx.Get(k)
				if err != nil {
					return err
				}
				return tc.edit(tx, k, v)
			}); err != nil {
				t.Fatal(err)
			}
			db.Close()
			s, err = openDir(dir, false)
			if err == nil {
				closeNoShrink(s)
				t.Fatal("opened")
			}
			if !errors.Is(err, ErrTampered) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}
