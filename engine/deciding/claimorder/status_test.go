package claimorder

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// TestStatusWindow_ListsAsAllTodosDo: over many random goals, what status
// lists from a window of the claim order and the todos for humans the read
// model keeps (readmodel.Model.StatusWindow) is what it lists from every
// todo: next is a prefix of the whole list's next (all of it when the
// window is the whole claim order), and the todos for humans are the same.
func TestStatusWindow_ListsAsAllTodosDo(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(32, 2026))
	ids := func(ts []records.Todo) []string {
		out := []string{}
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	windows, whole := 0, 0
	for c := range 200 {
		todos := randomTodos(rng, now)
		var gates []records.Gate
		if len(todos) > 0 && rng.IntN(3) == 0 {
			gates = append(gates, records.Gate{ID: "g-1", Question: "Ship it?", Options: []string{"approve"}, ScopeKind: "todo",
				ScopeTodos: []string{todos[rng.IntN(len(todos))].ID}, Status: records.GateOpen})
		}
		wantNext, wantYou, err := Next(todos, nil, gates, now)
		if err != nil {
			t.Fatal(err)
		}
		in, err := Input(todos)
		if err != nil {
			t.Fatal(err)
		}
		h := readmodel.HotOf(todos, Order())
		sum := readmodel.Summarize(todos, in.DepsOpen)
		rm := &readmodel.Model{Goals: map[string]*readmodel.GoalModel{"g1": {Hot: h, Summary: &sum}}}
		for _, least := range []int{1, 2, 3, 5, 8, readmodel.HeadSize} {
			w, moreHumans, ok := rm.StatusWindow("g1", least)
			if !ok || moreHumans {
				t.Fatalf("case %d, window %d: no window (more humans %v)", c, least, moreHumans)
			}
			next, you, err := Next(w.Todos, w.DepsOpen, gates, now)
			if err != nil {
				t.Fatal(err)
			}
			windows++
			got, want := ids(next), ids(wantNext)
			if len(got) > len(want) || !slices.Equal(got, want[:len(got)]) || (!w.Partial && !slices.Equal(got, want)) {
				t.Fatalf("case %d, window %d (partial %v): next %v, from every todo %v", c, least, w.Partial, got, want)
			}
			if !w.Partial {
				whole++
			}
			if !slices.Equal(ids(you), ids(wantYou)) {
				t.Fatalf("case %d, window %d: for humans %v, from every todo %v", c, least, ids(you), ids(wantYou))
			}
		}
	}
	if windows < 1000 || whole == 0 || whole == windows {
		t.Fatalf("too few cases exercised: %d windows, %d whole", windows, whole)
	}
}
