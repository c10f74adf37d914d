package kernel

import (
	"slices"
	"strings"
	"sync/atomic"

	"github.com/loopx-dev/loopx/kernel/records"
)

// The todo index: what a decision reads of a goal's todos besides its
// window of the claim order — the todos with a lease not released (rounds
// in flight, scope conflicts), the monitors not done (progress), and how
// many todos are open — kept beside them so that a decision under the
// lock reads its window's todos and these, never every todo. Every
// AddTodo and PutTodo keeps it; a store written before it has no
// keyTodoIndex, is read by scanning every todo meanwhile, and is indexed
// whole by its next write of a todo.
const keyTodoIndex = "meta:todo_index"

func keyLeasedTodos(g string) string  { return "tix:leased:" + g }
func keyMonitorTodos(g string) string { return "tix:monitors:" + g }
func keyOpenTodoCount(g string) string {
	return "tix:open:" + g
}

// TodosIndexed reports whether the store keeps the todo index.
func (tx *Tx) TodosIndexed() bool {
	_, err := tx.tx.Get(keyTodoIndex)
	return err == nil
}

func isLeased(t records.Todo) bool { return t.Lease != nil && !t.Lease.Released }
func isMonitor(t records.Todo) bool {
	return t.Kind == records.KindMonitor && t.Status != records.TodoDone
}
func isOpenTodo(t records.Todo) bool {
	return t.Status != records.TodoDone && t.Status != records.TodoCancelled
}

// indexTodo keeps the todo index for t, written in this transaction over
// old (nil for a new todo); a store without the index is indexed whole
// first.
func (tx *Tx) indexTodo(old *records.Todo, t records.Todo) error {
	if !tx.TodosIndexed() {
		return tx.buildTodoIndex()
	}
	var was records.Todo
	if old != nil {
		was = *old
	}
	for _, l := range []struct {
		key      string
		in       func(records.Todo) bool
		had, has bool
	}{
		{keyLeasedTodos(t.Goal), isLeased, old != nil && isLeased(was), isLeased(t)},
		{keyMonitorTodos(t.Goal), isMonitor, old != nil && isMonitor(was), isMonitor(t)},
	} {
		if l.had == l.has {
			continue
		}
		var ids []string
		if _, err := tx.getJSON(l.key, &ids); err != nil {
			return err
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return id == t.ID })
		if l.has {
			ids = append(ids, t.ID)
		}
		if ids == nil {
			ids = []string{}
		}
		if err := tx.putJSON(l.key, ids); err != nil {
			return err
		}
	}
	if had, has := old != nil && isOpenTodo(was), isOpenTodo(t); had != has {
		var n int
		if _, err := tx.getJSON(keyOpenTodoCount(t.Goal), &n); err != nil {
			return err
		}
		if has {
			n++
		} else {
			n--
		}
		return tx.putJSON(keyOpenTodoCount(t.Goal), n)
	}
	return nil
}

// buildTodoIndex writes the todo index of every todo in the store and
// marks the store indexed.
func (tx *Tx) buildTodoIndex() error {
	goals := map[string]bool{}
	err := tx.tx.AscendGreaterOrEqual("", "todo:", func(k, _ string) bool {
		if !strings.HasPrefix(k, "todo:") {
			return false
		}
		if g, _, ok := strings.Cut(k[len("todo:"):], ":"); ok {
			goals[g] = true
		}
		return true
	})
	if err != nil {
		return err
	}
	for g := range goals {
		todos, err := tx.Todos(g)
		if err != nil {
			return err
		}
		leased, monitors, open := []string{}, []string{}, 0
		for _, t := range todos {
			if isLeased(t) {
				leased = append(leased, t.ID)
			}
			if isMonitor(t) {
				monitors = append(monitors, t.ID)
			}
			if isOpenTodo(t) {
				open++
			}
		}
		if err := tx.putJSON(keyLeasedTodos(g), leased); err != nil {
			return err
		}
		if err := tx.putJSON(keyMonitorTodos(g), monitors); err != nil {
			return err
		}
		if err := tx.putJSON(keyOpenTodoCount(g), open); err != nil {
			return err
		}
	}
	return tx.set(keyTodoIndex, "1")
}

// indexedTodos reads the todos listed at key that still satisfy in, in
// the order Todos gives.
func (tx *Tx) indexedTodos(key string, in func(records.Todo) bool) ([]records.Todo, error) {
	var ids []string
	if _, err := tx.getJSON(key, &ids); err != nil {
		return nil, err
	}
	out := []records.Todo{}
	for _, id := range ids {
		t, err := tx.Todo(id)
		if err != nil {
			return nil, err
		}
		if in(t) {
			out = append(out, t)
		}
	}
	sortTodos(out)
	return out, nil
}

// LeasedTodos returns goal's todos (any status) whose lease is not
// released, in the order Todos gives; ok false when the store keeps no
// todo index (the caller reads every todo).
func (tx *Tx) LeasedTodos(goal string) (todos []records.Todo, ok bool, err error) {
	if !tx.TodosIndexed() {
		return nil, false, nil
	}
	todos, err = tx.indexedTodos(keyLeasedTodos(goal), isLeased)
	return todos, err == nil, err
}

// MonitorTodos returns goal's monitor todos not done, in the order Todos
// gives; ok false when the store keeps no todo index.
func (tx *Tx) MonitorTodos(goal string) (todos []records.Todo, ok bool, err error) {
	if !tx.TodosIndexed() {
		return nil, false, nil
	}
	todos, err = tx.indexedTodos(keyMonitorTodos(goal), isMonitor)
	return todos, err == nil, err
}

// OpenTodoCount returns how many of goal's todos are neither done nor
// cancelled; ok false when the store keeps no todo index.
func (tx *Tx) OpenTodoCount(goal string) (n int, ok bool, err error) {
	if !tx.TodosIndexed() {
		return 0, false, nil
	}
	_, err = tx.getJSON(keyOpenTodoCount(goal), &n)
	return n, err == nil, err
}

// todosDecoded counts the todo records this process decoded
// (TodosDecoded).
var todosDecoded atomic.Uint64

// TodosDecoded is how many todo records this process has decoded from
// every store it opened: what tests read to show that an operation reads
// a bounded number of todos, however many the goal has.
func TodosDecoded() uint64 { return todosDecoded.Load() }
