package input

import (
	"encoding/json"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"
)

// Value converts in to OPA's value form for rego.EvalParsedInput.
// OPA would round-trip the whole input through JSON; the todos — most of
// it — are built directly instead, which is a quarter of a decision's
// evaluation at 200 todos. The result is the same value OPA would build
// from json.Marshal(in) — the input the decision log stores — nil slices
// included (null); TestInputValue_IsTheStoredInput holds it to that.
func Value(in Input) (ast.Value, error) {
	todos := in.State.Todos
	in.State.Todos = nil
	b, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := util.UnmarshalJSON(b, &doc); err != nil {
		return nil, err
	}
	v, err := ast.InterfaceToValue(doc)
	if err != nil {
		return nil, err
	}
	state, ok := v.(ast.Object).Get(ast.InternedTerm("state")).Value.(ast.Object)
	if ok && todos != nil { // nil stays null, as in JSON
		state.Insert(ast.InternedTerm("todos"), ast.NewTerm(TodosValue(todos)))
	}
	return v, nil
}

// TodosValue is input.state.todos's value for todos (as Value builds it).
func TodosValue(todos []TodoFacts) ast.Value {
	arr := make([]*ast.Term, 0, len(todos))
	for _, t := range todos {
		arr = append(arr, ast.NewTerm(todoValue(t)))
	}
	return ast.NewArray(arr...)
}

func strs(ss []string) *ast.Term {
	if ss == nil {
		return ast.NullTerm() // as json.Marshal writes a nil slice
	}
	ts := make([]*ast.Term, len(ss))
	for i, s := range ss {
		ts[i] = ast.StringTerm(s)
	}
	return ast.ArrayTerm(ts...)
}

// todoValue is TodoFacts as OPA's value, with the JSON field names.
func todoValue(t TodoFacts) ast.Value {
	var lease *ast.Term = ast.NullTerm()
	if l := t.Lease; l != nil {
		lease = ast.ObjectTerm(
			ast.Item(ast.StringTerm("holder"), ast.StringTerm(l.Holder)),
			ast.Item(ast.StringTerm("expires_at"), ast.StringTerm(l.ExpiresAt)),
			ast.Item(ast.StringTerm("live"), ast.BooleanTerm(l.Live)),
			ast.Item(ast.StringTerm("version"), ast.UIntNumberTerm(l.Version)),
			ast.Item(ast.StringTerm("epoch"), ast.UIntNumberTerm(l.Epoch)),
		)
	}
	items := [][2]*ast.Term{
		ast.Item(ast.StringTerm("id"), ast.StringTerm(t.ID)),
		ast.Item(ast.StringTerm("title"), ast.StringTerm(t.Title)),
		ast.Item(ast.StringTerm("kind"), ast.StringTerm(t.Kind)),
		ast.Item(ast.StringTerm("status"), ast.StringTerm(t.Status)),
		ast.Item(ast.StringTerm("priority"), ast.IntNumberTerm(t.Priority)),
		ast.Item(ast.StringTerm("created_at"), ast.StringTerm(t.CreatedAt)),
		ast.Item(ast.StringTerm("deps_open"), strs(t.DepsOpen)),
		ast.Item(ast.StringTerm("lease"), lease),
		ast.Item(ast.StringTerm("due"), ast.BooleanTerm(t.Due)),
		ast.Item(ast.StringTerm("next_due_at"), ast.StringTerm(t.NextDueAt)),
		ast.Item(ast.StringTerm("labels"), strs(t.Labels)),
		ast.Item(ast.StringTerm("scope_conflict"), ast.StringTerm(t.ScopeConflict)),
	}
	return ast.NewObject(items...)
}
