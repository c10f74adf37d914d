package inputstate

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Under is tx, a read transaction of the store held under its lock (a
// round start's should_run), with the todo windows of rm when rm describes
// that very state (readmodel.Model.Describes; nil: tx alone, every todo).
// Only the window's order — which todos of the claim order it holds —
// is rm's: every fact a decision reads is tx's (checked.TodoWindow).
func Under(tx Source, rm *readmodel.Model) Source {
	if rm == nil {
		return tx
	}
	return checked{Source: tx, model: rm}
}

// checked is a store transaction whose todo windows come from a read
// model, checked against the store. The read model is a file a process
// outside a sandbox could rewrite with its checksums recomputed, and a
// write decides from the store (docs/trust.md: what loopx cannot stop): so the
// window's todos are the store's records (a window todo the store holds
// otherwise, or not at all, drops the window: every todo is read), their
// open dependencies, the leased todos (scope conflicts, rounds in flight)
// and the monitors (progress) are computed from the store's todos, and
// so are the goal, gates, rounds, ledger and agents. A forged claim order
// can only choose among the todos the policy, over the store's facts,
// lets the agent claim (as `todo claim` can), or leave none in the window
// (the decision then reads every todo).
type checked struct {
	Source
	model Windowed
}

// TodoWindow is the read model's window of goal's todos (Windowed),
// re-read from the store; false when the model keeps none that long, the
// store cannot be read, or a window todo is not the store's record.
func (c checked) TodoWindow(goal string, least int) (readmodel.Window, bool) {
	w, ok := c.model.TodoWindow(goal, least)
	if !ok {
		return w, false
	}
	if ix, isIx := c.Source.(TodoIndexer); isIx {
		if out, ok, known := indexedWindow(ix, goal, w); known {
			return out, ok
		}
	}
	todos, err := c.Source.Todos(goal)
	if err != nil {
		return readmodel.Window{}, false
	}
	byID, done, open := map[string]int{}, map[string]bool{}, 0
	leased, monitors := []records.Todo{}, []records.Todo{}
	for i, t := range todos {
		byID[t.ID] = i
		done[t.ID] = t.Status == records.TodoDone
		if t.Status != records.TodoDone && t.Status != records.TodoCancelled {
			open++
		}
		if t.Lease != nil && !t.Lease.Released {
			leased = append(leased, t)
		}
		if t.Kind == records.KindMonitor && t.Status != records.TodoDone {
			monitors = append(monitors, t)
		}
	}
	out := readmodel.Window{Todos: make([]records.Todo, len(w.Todos)), DepsOpen: make([][]string, len(w.Todos)),
		Partial: len(w.Todos) < open, Leased: leased, Monitors: monitors}
	for i, t := range w.Todos {
		j, ok := byID[t.ID]
		if !ok || !sameRecord(todos[j], t) {
			return readmodel.Window{}, false
		}
		out.Todos[i] = todos[j]
		out.DepsOpen[i] = []string{}
		for _, d := range todos[j].DependsOn {
			if !done[d] {
				out.DepsOpen[i] = append(out.DepsOpen[i], d)
			}
		}
		if !slices.Equal(out.DepsOpen[i], w.DepsOpen[i]) {
			return readmodel.Window{}, false
		}
	}
	return out, true
}

// TodoIndexer is a Source that keeps an index of its todos
// (kernel.Tx: the todo index), so that a window is checked against the
// store by reading its own todos, their dependencies and the indexed ones,
// never every todo.
type TodoIndexer interface {
	Todo(id string) (records.Todo, error)
	LeasedTodos(goal string) ([]records.Todo, bool, error)
	MonitorTodos(goal string) ([]records.Todo, bool, error)
	OpenTodoCount(goal string) (int, bool, error)
}

// indexedWindow is checked.TodoWindow's answer for the read model's
// window w of goal from the store's todo index: the window's todos are
// the store's records (or the window is dropped, ok false), their open
// dependencies are read by id (a dependency not done in goal is open),
// and the leased todos, the monitors and the count of open todos come
// from the index. known is false when the store keeps no index (or
// cannot be read): the caller reads every todo.
func indexedWindow(ix TodoIndexer, goal string, w readmodel.Window) (out readmodel.Window, ok, known bool) {
	leased, ok1, err1 := ix.LeasedTodos(goal)
	monitors, ok2, err2 := ix.MonitorTodos(goal)
	open, ok3, err3 := ix.OpenTodoCount(goal)
	if !ok1 || !ok2 || !ok3 || err1 != nil || err2 != nil || err3 != nil {
		return out, false, false
	}
	out = readmodel.Window{Todos: make([]records.Todo, len(w.Todos)), DepsOpen: make([][]string, len(w.Todos)),
		Partial: len(w.Todos) < open, Leased: leased, Monitors: monitors}
	for i, t := range w.Todos {
		st, err := ix.Todo(t.ID)
		if err != nil || st.Goal != goal || !sameRecord(st, t) {
			return readmodel.Window{}, false, true
		}
		out.Todos[i] = st
		out.DepsOpen[i] = []string{}
		for _, d := range st.DependsOn {
			if dt, err := ix.Todo(d); err != nil || dt.Goal != goal || dt.Status != records.TodoDone {
				out.DepsOpen[i] = append(out.DepsOpen[i], d)
			}
		}
		if !slices.Equal(out.DepsOpen[i], w.DepsOpen[i]) {
			return readmodel.Window{}, false, true
		}
	}
	return out, true, true
}

// HotRounds are the store's hot rounds of goal (HotRounder), every round
// when the store keeps no index of them.
func (c checked) HotRounds(goal string) ([]records.Round, error) {
	return HotRoundsOf(c.Source, goal)
}

// LedgerSince is the store's ledger of goal after start (LedgerSincer).
func (c checked) LedgerSince(goal string, start time.Time) ([]records.LedgerEntry, error) {
	if l, ok := c.Source.(LedgerSincer); ok {
		return l.LedgerSince(goal, start)
	}
	all, err := c.Source.Ledger(goal)
	return slices.DeleteFunc(all, func(e records.LedgerEntry) bool { return !e.At.After(start) }), err
}

// sameRecord reports whether a and b are the same record (their JSON).
func sameRecord(a, b records.Todo) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
