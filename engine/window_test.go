package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/claimorder"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// TestDecide_WindowDecidesAsAllTodos: should_run read from the read model
// (a window of the claim order) decides exactly as read from the store
// (every todo): a todo past the first window, an own live claim late in
// the claim order (the window reaches it), another agent's claim on the
// first todo, and no todo to claim at all (the no_todo message counts
// every todo).
func TestDecide_WindowDecidesAsAllTodos(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	todo := func(i int, patch func(*records.Todo)) records.Todo {
		k := records.Todo{Goal: "g1", Title: fmt.Sprintf("todo %d", i), Priority: 2}
		if patch != nil {
			patch(&k)
		}
		return k
	}
	forA2 := func(k *records.Todo) { k.Priority, k.Labels = 0, []string{"for:a2"} }
	leased := func(holder string) func(*records.Todo) {
		return func(k *records.Todo) {
			k.Status = records.TodoClaimed
			k.Lease = &records.Lease{Holder: holder, Version: 1, Epoch: 1, ExpiresAt: now.Add(time.Hour)}
		}
	}
	for _, c := range []struct {
		name    string
		todo    func(i int) records.Todo
		n       int
		verdict string
		want    string // the selected todo's title, or the no_todo message
	}{
		{"past the first window", func(i int) records.Todo {
			if i < 40 {
				return todo(i, forA2)
			}
			return todo(i, func(k *records.Todo) { k.Priority = 3 })
		}, 41, "run", "todo 40"},
		{"nothing to claim", func(i int) records.Todo { return todo(i, forA2) }, 41, "skip", "41 todos: 41 handed to other agents"},
		{"own claim late", func(i int) records.Todo {
			switch {
			case i == 50:
				return todo(i, leased("a1"))
			case i >= 60:
				return todo(i, func(k *records.Todo) { k.Priority = 4 })
			}
			return todo(i, nil)
		}, 70, "run", "todo 50"},
		{"another's claim first", func(i int) records.Todo {
			if i == 0 {
				return todo(i, leased("a2"))
			}
			return todo(i, nil)
		}, 60, "run", "todo 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := benchProject(t, 0, 0)
			s, err := kernel.Open(filepath.Join(root, scaffold.StateDirName), kernel.Options{Now: clock})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Update(func(tx *kernel.Tx) error {
				for i := range c.n {
					if _, err := tx.AddTodo(c.todo(i)); err != nil {
						return err
					}
				}
				return nil
			})
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			req := Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"}
			decide := func(open bool) (decision.Decision, *Engine) {
				e := New(Options{Root: root, StateHome: stateHome(root), Now: clock})
				if open {
					if _, err := e.Store(); err != nil {
						t.Fatal(err)
					}
				}
				d, err := e.Decide(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				return d, e
			}
			all, e := decide(true) // the store: every todo
			e.Close()              // the read model written after the unlock
			win, e := decide(false)
			defer e.Close()
			if e.sess.store != nil {
				t.Fatal("the decision opened the store instead of reading the read model")
			}
			in, partial, _ := e.inputFrom(e.sess.loadReadModel(now), req, now, claimorder.First)
			if !partial || len(in.State.Todos) >= c.n {
				t.Fatalf("the first window lists %d of %d todos (partial %v)", len(in.State.Todos), c.n, partial)
			}
			got := win.Reasons[0].Message
			if win.Todo != nil {
				got = win.Todo.Title
			}
			if win.Verdict != c.verdict || got != c.want {
				t.Fatalf("decided %s %q, want %s %q", win.Verdict, got, c.verdict, c.want)
			}
			a, _ := json.Marshal([]any{all.Verdict, all.Todo, all.Reasons, all.NextCheckAt})
			w, _ := json.Marshal([]any{win.Verdict, win.Todo, win.Reasons, win.NextCheckAt})
			if string(a) != string(w) {
				t.Fatalf("from the read model:\n%s\nfrom the store:\n%s", w, a)
			}
		})
	}
}
