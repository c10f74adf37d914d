// Package claimorder computes a goal's claim order once per state
// revision for the read model (readmodel.Order): the todos some agent may
// claim, in the order should_run selects them, as the built-in rule
// data.loopx.lib.claim_order says (the rule stays in Rego; this package
// only evaluates it).
package claimorder

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"sync"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/policies"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// rule is the entry rule of the claim order.
const rule = "data.loopx.lib.claim_order"

// Order is the read model's claim order: data.loopx.lib.claim_order of
// the built-in bundle (policies.Hash names it).
func Order() readmodel.Order { return readmodel.Order{Bundle: policies.Hash(), Input: Input} }

// prepared is data.loopx.lib.claim_order over input.todos, prepared once per
// process over only the modules it reaches, as a cold decision compiles
// them (rulebook.PrepareBuiltin).
var prepared = sync.OnceValues(func() (*rego.PreparedEvalQuery, error) {
	return rulebook.PrepareBuiltin(context.Background(), "order := data.loopx.lib.claim_order(input.todos)", rule)
})

// Prepare compiles the claim order's query in the background: a command
// that writes calls it early, so that the read model it writes after the
// unlock (Order) does not wait for the compile.
func Prepare() { go func() { _, _ = prepared() }() }

// fact is one todo of the claim order's input: the facts of
// input.state.todos (inputstate.TodoFacts) that data.loopx.lib.claim_order
// reads — settled reads deps_open, status and kind; order_key kind,
// priority and created_at — and nothing else (no id, title, labels, lease
// or scope conflict), so that a write that changes none of them (a lease
// renewed or released, evidence, a gate) leaves the input, and with it
// the order, the same (readmodel.Kept). TestInput_TheRuleReadsNothingElse
// fails when the rule reads more.
type fact struct {
	Kind, Status string
	Priority     int
	CreatedAt    string
	DepsOpen     []string
}

// factsOf is the facts of the open todos among todos (all of a goal's, as
// the store orders them): the fields of inputstate.TodoFacts the rule
// reads, taken from each record as TodoFacts takes them
// (TestFactsOf_AsTodoFacts) without the rest (a todo's lease, labels,
// scope conflicts), which every write's refresh would compute for every
// todo.
func factsOf(todos []records.Todo) []fact {
	done := map[string]bool{}
	open := 0
	for _, t := range todos {
		switch t.Status {
		case records.TodoDone:
			done[t.ID] = true
		case records.TodoCancelled:
		default:
			open++
		}
	}
	out := make([]fact, 0, open)
	var buf []byte
	for _, t := range todos {
		if t.Status == records.TodoDone || t.Status == records.TodoCancelled {
			continue
		}
		deps := []string{}
		for _, d := range t.DependsOn {
			if !done[d] {
				deps = append(deps, d)
			}
		}
		buf = t.CreatedAt.UTC().AppendFormat(buf[:0], inputstate.CreatedAtLayout)
		out = append(out, fact{Kind: t.Kind, Status: t.Status, Priority: t.Priority, CreatedAt: string(buf), DepsOpen: deps})
	}
	return out
}

// value is f as OPA's value, with input.state.todos' field names.
func (f fact) value() *ast.Term {
	deps := make([]*ast.Term, len(f.DepsOpen))
	for i, d := range f.DepsOpen {
		deps[i] = ast.StringTerm(d)
	}
	return ast.ObjectTerm(
		ast.Item(ast.StringTerm("kind"), ast.StringTerm(f.Kind)),
		ast.Item(ast.StringTerm("status"), ast.StringTerm(f.Status)),
		ast.Item(ast.StringTerm("priority"), ast.IntNumberTerm(f.Priority)),
		ast.Item(ast.StringTerm("created_at"), ast.StringTerm(f.CreatedAt)),
		ast.Item(ast.StringTerm("deps_open"), ast.ArrayTerm(deps...)),
	)
}

// Input maps a goal's todos (all of them, as the store orders them) to
// the claim order's input: the facts the rule reads of each open todo
// (those not done or cancelled, input.state.todos when it lists them
// all), their open dependencies, and the input's key (the SHA-256 of the
// bundle's hash and the facts, each string length-prefixed). The claim order reads neither the
// asking agent nor the clock (data.loopx.lib.settled, order_key), so the
// facts are taken for no agent at the zero instant. Errors: the hash's
// writer's (none in practice).
func Input(todos []records.Todo) (readmodel.OrderInput, error) {
	facts := factsOf(todos)
	in := readmodel.OrderInput{DepsOpen: make([][]string, len(facts))}
	for i, f := range facts {
		in.DepsOpen[i] = f.DepsOpen
	}
	h := sha256.New()
	w := bufio.NewWriterSize(h, 64<<10)
	str := func(s string) { // length-prefixed: the encoding is injective
		w.Write(binary.AppendUvarint(nil, uint64(len(s))))
		w.WriteString(s)
	}
	str(policies.Hash())
	w.Write(binary.AppendUvarint(nil, uint64(len(facts))))
	for _, f := range facts {
		str(f.Kind)
		str(f.Status)
		w.Write(binary.AppendVarint(nil, int64(f.Priority)))
		str(f.CreatedAt)
		w.Write(binary.AppendUvarint(nil, uint64(len(f.DepsOpen))))
		for _, d := range f.DepsOpen {
			str(d)
		}
	}
	if err := w.Flush(); err != nil {
		return in, err
	}
	in.Key = hex.EncodeToString(h.Sum(nil))
	in.Eval = func() ([]int, error) { return eval(facts) }
	return in, nil
}

// Claim is the claim order of a goal's todos (all of them, as the store
// orders them), evaluated afresh: indexes among the open todos (Input),
// and the open dependencies of each open todo. Errors: eval's.
func Claim(todos []records.Todo) ([]int, [][]string, error) {
	in, err := Input(todos)
	if err != nil {
		return nil, nil, err
	}
	order, err := in.Eval()
	return order, in.DepsOpen, err
}

// eval evaluates data.loopx.lib.claim_order over facts. Errors: the
// policy's evaluation, or a result that is not a list of indexes.
func eval(facts []fact) ([]int, error) {
	pq, err := prepared()
	if err != nil {
		return nil, err
	}
	terms := make([]*ast.Term, len(facts))
	for i, f := range facts {
		terms[i] = f.value()
	}
	in := ast.NewObject(ast.Item(ast.StringTerm("todos"), ast.ArrayTerm(terms...)))
	rs, err := pq.Eval(context.Background(), rego.EvalParsedInput(in))
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 {
		return nil, errors.New("claimorder: data.loopx.lib.claim_order is undefined")
	}
	raw, ok := rs[0].Bindings["order"].([]any)
	if !ok {
		return nil, errors.New("claimorder: data.loopx.lib.claim_order is not a list")
	}
	out := make([]int, len(raw))
	for k, v := range raw {
		n, ok := v.(interface{ Int64() (int64, error) })
		if !ok {
			return nil, errors.New("claimorder: data.loopx.lib.claim_order lists a non-number")
		}
		i, err := n.Int64()
		if err != nil || i < 0 || int(i) >= len(facts) {
			return nil, errors.New("claimorder: data.loopx.lib.claim_order lists no open todo")
		}
		out[k] = int(i)
	}
	return out, nil
}

// First is the fewest todos of the claim order a should_run decision
// reads first when the read model keeps them (readmodel.Model.TodoWindow).
const First = 8

// Windows are the todo windows a decision of q reads in turn (0: all
// todos; see Again): a query that selects a todo from the claim order
// (should_run, query.Query.SelectsTodo) reads First todos of it, then the
// whole head the read model keeps, then all todos. Other queries, and
// should_run when a user policy may read the todos (userReads,
// rulebook.ReadsTodos), read all of them at once.
func Windows(q query.Query, userReads bool) []int {
	if !q.SelectsTodo || userReads {
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
