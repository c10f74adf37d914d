package claimorder

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/open-policy-agent/opa/v1/rego"
)

// nextRule is the entry rule of what loopx status lists.
const nextRule = "data.loopx.lib.next_todos"

// nextQuery is data.loopx.lib.next_todos over input.todos and
// input.gates, prepared once per process over only the modules it reaches.
var nextQuery = sync.OnceValues(func() (*rego.PreparedEvalQuery, error) {
	return rulebook.PrepareBuiltin(context.Background(), "lists := data.loopx.lib.next_todos(input.todos, input.gates)", nextRule)
})

// Next is what loopx status lists of a goal's todos (todos: all of them,
// as the store orders them, depsOpen nil; or a window of them, not done
// or cancelled, in the store's order, with each one's open dependencies
// in depsOpen: readmodel.Model.StatusWindow) with its open gates at now,
// as the built-in rule data.loopx.lib.next_todos says: next, the todos
// should_run would select for an agent holding none, in its order;
// forYou, the workable todos for humans (gate and action). Over a window
// holding a prefix of the claim order, next is the part of the whole
// list's next that falls in that prefix. Errors: the policy's
// evaluation, or a result of another shape.
func Next(todos []records.Todo, depsOpen [][]string, gates []records.Gate, now time.Time) (next, forYou []records.Todo, err error) {
	pq, err := nextQuery()
	if err != nil {
		return nil, nil, err
	}
	var facts []input.TodoFacts
	if depsOpen == nil {
		facts = inputstate.TodoFacts(todos, "", now)
	} else {
		facts = inputstate.WindowFacts(readmodel.Window{Todos: todos, DepsOpen: depsOpen}, "", now)
	}
	byID := make(map[string]records.Todo, len(todos))
	for _, t := range todos {
		byID[t.ID] = t
	}
	in := map[string]any{"todos": facts, "gates": inputstate.GateFacts(gates)}
	rs, err := pq.Eval(context.Background(), rego.EvalInput(in))
	if err != nil {
		return nil, nil, err
	}
	if len(rs) != 1 {
		return nil, nil, errors.New("claimorder: data.loopx.lib.next_todos is undefined")
	}
	lists, ok := rs[0].Bindings["lists"].(map[string]any)
	if !ok {
		return nil, nil, errors.New("claimorder: data.loopx.lib.next_todos is not an object")
	}
	pick := func(key string) ([]records.Todo, error) {
		raw, ok := lists[key].([]any)
		if !ok {
			return nil, errors.New("claimorder: data.loopx.lib.next_todos." + key + " is not a list")
		}
		out := make([]records.Todo, 0, len(raw))
		for _, v := range raw {
			n, ok := v.(interface{ Int64() (int64, error) })
			if !ok {
				return nil, errors.New("claimorder: data.loopx.lib.next_todos lists a non-number")
			}
			i, err := n.Int64()
			if err != nil || i < 0 || int(i) >= len(facts) {
				return nil, errors.New("claimorder: data.loopx.lib.next_todos lists no open todo")
			}
			out = append(out, byID[facts[i].ID])
		}
		return out, nil
	}
	if next, err = pick("next"); err != nil {
		return nil, nil, err
	}
	forYou, err = pick("for_you")
	return next, forYou, err
}
