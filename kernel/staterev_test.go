package kernel

import (
	"testing"

	"github.com/loopx-dev/loopx/kernel/records"
)

// TestStateRevision: the state revision follows the commits that change a
// record decisions read, and stays where it was over commits that only
// count polls; the global revision moves on every commit.
func TestStateRevision(t *testing.T) {
	s := openT(t, t.TempDir())
	defer s.Close()
	revs := func() (global, state uint64) {
		t.Helper()
		if err := s.View(func(tx *Tx) error {
			global, state = tx.Revision(), tx.StateRevision()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return global, state
	}
	update := func(fn func(tx *Tx) error) {
		t.Helper()
		if err := s.Update(fn); err != nil {
			t.Fatal(err)
		}
	}
	addTodo := func(tx *Tx) error { _, err := tx.AddTodo(records.Todo{Goal: "g", Title: "a todo"}); return err }
	poll := func(tx *Tx) error { _, err := tx.CountGatePoll("g", "g-1", "codex"); return err }

	update(addTodo)
	g1, s1 := revs()
	if s1 != g1 {
		t.Fatalf("after a todo: state revision %d, global %d", s1, g1)
	}
	for _, step := range []struct {
		name       string
		fn         func(tx *Tx) error
		stateMoves bool
	}{
		{"a poll", poll, false},
		{"another poll", poll, false},
		{"a todo", addTodo, true},
		{"a poll after the todo", poll, false},
		{"the denial spool imported", func(tx *Tx) error {
			if err := tx.SetSpoolImported(map[string]string{"denials.jsonl": "10"}); err != nil {
				return err
			}
			return tx.AppendEvent(records.Event{Kind: "permission.denied", Goal: "g", Actor: "unverified"})
		}, false},
	} {
		gBefore, sBefore := revs()
		var inTx uint64
		update(func(tx *Tx) error {
			err := step.fn(tx)
			inTx = tx.StateRevision()
			return err
		})
		g, st := revs()
		if g != gBefore+1 {
			t.Errorf("%s: global revision %d → %d, want +1", step.name, gBefore, g)
		}
		want := sBefore
		if step.stateMoves {
			want = g
		}
		if st != want || inTx != want {
			t.Errorf("%s: state revision %d → %d (%d inside the transaction), want %d", step.name, sBefore, st, inTx, want)
		}
	}
}
