package kernel

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/loopx-dev/loopx/kernel/records"
)

// checkTodoIndex compares what the todo index gives with every todo.
func checkTodoIndex(t *testing.T, s *Store, goals []string) {
	t.Helper()
	err := s.View(func(tx *Tx) error {
		for _, g := range goals {
			all, err := tx.Todos(g)
			if err != nil {
				return err
			}
			var leased, monitors []string
			open := 0
			for _, td := range all {
				if td.Lease != nil && !td.Lease.Released {
					leased = append(leased, td.ID)
				}
				if td.Kind == records.KindMonitor && td.Status != records.TodoDone {
					monitors = append(monitors, td.ID)
				}
				if td.Status != records.TodoDone && td.Status != records.TodoCancelled {
					open++
				}
			}
			l, ok1, err := tx.LeasedTodos(g)
			if err != nil {
				return err
			}
			m, ok2, err := tx.MonitorTodos(g)
			if err != nil {
				return err
			}
			n, ok3, err := tx.OpenTodoCount(g)
			if err != nil {
				return err
			}
			if !ok1 || !ok2 || !ok3 {
				t.Fatalf("goal %s: the store keeps no todo index", g)
			}
			ids := func(ts []records.Todo) (out []string) {
				for _, td := range ts {
					out = append(out, td.ID)
				}
				return out
			}
			if !slices.Equal(ids(l), leased) || !slices.Equal(ids(m), monitors) || n != open {
				t.Errorf("goal %s: leased %v monitors %v open %d, want %v %v %d", g, ids(l), ids(m), n, leased, monitors, open)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTodoIndex_SameAsEveryTodo plays todos of two goals — added as
// tasks or monitors, leased, released, done, cancelled, reopened — in a
// store whose first todos were written without the index, and checks
// after each commit that the index gives what reading every todo gives.
func TestTodoIndex_SameAsEveryTodo(t *testing.T) {
	s := openT(t, t.TempDir())
	defer s.Close()
	// Written as a loopx before the index wrote them.
	if err := s.Update(func(tx *Tx) error {
		for i, kind := range []string{records.KindTask, records.KindMonitor, records.KindTask} {
			td := records.Todo{ID: "t-old" + string(rune('a'+i)), Goal: "g1", Kind: kind, Status: records.TodoOpen, CreatedAt: t0}
			if i == 2 {
				td.Lease = &records.Lease{Holder: "a", ExpiresAt: t0.Add(1e12)}
			}
			if err := tx.setRef(td.ID, keyTodo(td.Goal, td.ID)); err != nil {
				return err
			}
			if err := tx.putJSON(keyTodo(td.Goal, td.ID), td); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_ = s.View(func(tx *Tx) error {
		if tx.TodosIndexed() {
			t.Fatal("a store written without the todo index says it keeps one")
		}
		return nil
	})
	rnd := rand.New(rand.NewPCG(5, 6))
	statuses := []string{records.TodoOpen, records.TodoDone, records.TodoCancelled, records.TodoOpen}
	for step := 0; step < 120; step++ {
		err := s.Update(func(tx *Tx) error {
			g := []string{"g1", "g2"}[rnd.IntN(2)]
			todos, err := tx.Todos(g)
			if err != nil {
				return err
			}
			if len(todos) == 0 || rnd.IntN(3) == 0 {
				_, err := tx.AddTodo(records.Todo{Goal: g, Title: "x", Kind: []string{records.KindTask, records.KindMonitor}[rnd.IntN(2)]})
				return err
			}
			td := todos[rnd.IntN(len(todos))]
			switch rnd.IntN(3) {
			case 0:
				td.Lease = &records.Lease{Holder: "a", ExpiresAt: tx.Now().Add(1e12)}
			case 1:
				if td.Lease != nil {
					td.Lease.Released = true
				}
			default:
				td.Status = statuses[rnd.IntN(len(statuses))]
			}
			return tx.PutTodo(td)
		})
		if err != nil {
			t.Fatal(err)
		}
		checkTodoIndex(t, s, []string{"g1", "g2"})
		if t.Failed() {
			t.Fatalf("after step %d", step)
		}
	}
}
