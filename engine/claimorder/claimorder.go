// Package claimorder computes a goal's claim order once per state
// revision for the read model (readmodel.Order): the todos some agent may
// claim, in the order should_run selects them, as the built-in rule
// data.loopx.lib.claim_order says (the rule stays in Rego; this package
// only evaluates it).
package claimorder

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/loopx-dev/loopx/engine/decision"
	"github.com/loopx-dev/loopx/engine/input"
	"github.com/loopx-dev/loopx/engine/readmodel"
	"github.com/loopx-dev/loopx/engine/snapshot"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/policies"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// module is the built-in module that defines the claim order.
const module = "loopx/lib/todos.rego"

// Order is the read model's claim order: data.loopx.lib.claim_order of
// the built-in bundle (policies.Hash names it).
func Order() readmodel.Order { return readmodel.Order{Bundle: policies.Hash(), Claim: Claim} }

// query is data.loopx.lib.claim_order over input.todos, prepared once per
// process; only its own module is compiled.
var query = sync.OnceValues(func() (*rego.PreparedEvalQuery, error) {
	lib, _ := policies.Library()
	src, ok := lib[module]
	if !ok {
		return nil, errors.New("claimorder: no module " + module)
	}
	pq, err := rego.New(rego.Query("data.loopx.lib.claim_order(input.todos)"), rego.Module(module, src),
		rego.StrictBuiltinErrors(true)).PrepareForEval(context.Background())
	return &pq, err
})

// Prepare compiles the claim order's query in the background: a command
// that writes calls it early, so that the read model it writes after the
// unlock (Order) does not wait for the compile.
func Prepare() { go func() { _, _ = query() }() }

// Claim maps a goal's todos (all of them, as the store orders them) to
// the claim order, as indexes among the open todos (those not done or
// cancelled, input.state.todos when it lists them all), and the open
// dependencies of each open todo. The claim order reads neither the
// asking agent nor the clock (data.loopx.lib.settled, order_key), so the
// facts are taken for no agent at the zero instant. Errors: the policy's
// evaluation, or a result that is not a list of indexes.
func Claim(todos []kernel.Todo) ([]int, [][]string, error) {
	pq, err := query()
	if err != nil {
		return nil, nil, err
	}
	facts := snapshot.TodoFacts(todos, "", time.Time{})
	deps := make([][]string, len(facts))
	for i, f := range facts {
		deps[i] = f.DepsOpen
	}
	in := ast.NewObject(ast.Item(ast.StringTerm("todos"), ast.NewTerm(input.TodosValue(facts))))
	rs, err := pq.Eval(context.Background(), rego.EvalParsedInput(in))
	if err != nil {
		return nil, nil, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, nil, errors.New("claimorder: data.loopx.lib.claim_order is undefined")
	}
	raw, ok := rs[0].Expressions[0].Value.([]any)
	if !ok {
		return nil, nil, errors.New("claimorder: data.loopx.lib.claim_order is not a list")
	}
	out := make([]int, len(raw))
	for k, v := range raw {
		n, ok := v.(interface{ Int64() (int64, error) })
		if !ok {
			return nil, nil, errors.New("claimorder: data.loopx.lib.claim_order lists a non-number")
		}
		i, err := n.Int64()
		if err != nil || i < 0 || int(i) >= len(facts) {
			return nil, nil, errors.New("claimorder: data.loopx.lib.claim_order lists no open todo")
		}
		out[k] = int(i)
	}
	return out, deps, nil
}

// First is the fewest todos of the claim order a should_run decision
// reads first when the read model keeps them (readmodel.Model.TodoWindow).
const First = 8

// Windows are the todo windows a decision of query reads in turn (0: all
// todos; see Again): should_run reads First todos of the claim order,
// then the whole head the read model keeps, then all todos. Other
// queries, and should_run when a user policy may read the todos
// (userReads, rulebook.ReadsTodos), read all of them at once.
func Windows(query string, userReads bool) []int {
	if query != "should_run" || userReads {
		return []int{0}
	}
	return []int{First, readmodel.HeadSize, 0}
}

// Again reports whether the decision d, made over a window of n todos
// (partial: it left todos out), must be made again over windows[i]: only
// when the window held no todo the agent may claim (d is should_run's
// no_todo skip, data.loopx.run.no_todo) — any todo it selects is the one
// it would select from all of them (readmodel.Window) — and windows[i]
// reads more (no_todo's message counts every todo, so the last window is
// all of them).
func Again(windows []int, i int, partial bool, d decision.Decision, n int) bool {
	if i >= len(windows) || !partial || (windows[i] > 0 && n >= windows[i]) {
		return false
	}
	for _, r := range d.Reasons {
		if r.Rule == "data.loopx.run.no_todo" {
			return true
		}
	}
	return false
}
