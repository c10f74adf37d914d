package kernel

import (
	"reflect"
	"testing"

	"github.com/loopx-dev/loopx/kernel/records"
)

// TestGoalRecordCounts counts todos, gates and ledger entries per goal
// id from their keys; goals with nothing are absent, and a goal whose id
// prefixes another's is counted apart.
func TestGoalRecordCounts(t *testing.T) {
	s := openT(t, t.TempDir())
	defer s.Close()
	if err := s.Update(func(tx *Tx) error {
		for _, g := range []string{"g1", "g1", "g1-old", "old"} {
			if _, err := tx.AddTodo(records.Todo{Goal: g, Title: "t"}); err != nil {
				return err
			}
		}
		if _, err := tx.AddGate(records.Gate{Goal: "old", Question: "Merge the branch now?"}); err != nil {
			return err
		}
		for range 3 {
			if _, err := tx.AppendLedger(records.LedgerEntry{Goal: "old", Rounds: 1}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var got map[string]records.GoalRecords
	if err := s.View(func(tx *Tx) (err error) { got, err = tx.GoalRecordCounts(); return err }); err != nil {
		t.Fatal(err)
	}
	want := map[string]records.GoalRecords{"g1": {Todos: 2}, "g1-old": {Todos: 1}, "old": {Todos: 1, Gates: 1, Ledger: 3}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
}
