package claimorder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/policies"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// TestInput_TheRuleReadsNothingElse: over many random goals, the claim
// order evaluated over Input's facts (only the fields the rule reads) is
// the one data.loopx.lib.claim_order gives over the whole of
// input.state.todos as a decision lists it (ids, titles, labels, leases,
// scope conflicts, due monitors, for any agent at any instant). It fails
// when the rule starts reading a fact Input leaves out: the key would then
// let a write that changes that fact reuse a stale order.
func TestInput_TheRuleReadsNothingElse(t *testing.T) {
	opts := []func(*rego.Rego){rego.Query("data.loopx.lib.claim_order(input.todos)"), rego.StrictBuiltinErrors(true)}
	for path, src := range policies.EntryModules(rule) {
		opts = append(opts, rego.Module(path, src))
	}
	pq, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(15, 7))
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for c := range 300 {
		todos := randomTodos(rng, now)
		got, _, err := Claim(todos)
		if err != nil {
			t.Fatal(err)
		}
		agent := []string{"", "a1", "a2", "a3"}[rng.IntN(4)]
		at := now.Add(time.Duration(rng.IntN(5)-2) * time.Hour)
		facts := inputstate.TodoFacts(todos, agent, at)
		rs, err := pq.Eval(context.Background(), rego.EvalParsedInput(ast.NewObject(
			ast.Item(ast.StringTerm("todos"), ast.NewTerm(input.TodosValue(facts))))))
		if err != nil || len(rs) != 1 {
			t.Fatalf("case %d: %v", c, err)
		}
		want, _ := json.Marshal(rs[0].Expressions[0].Value)
		if g, _ := json.Marshal(got); string(g) != string(want) {
			t.Fatalf("case %d (agent %q at %s): over Input's facts %s, over input.state.todos %s\ntodos: %s", c, agent, at, g, want, dump(facts))
		}
	}
}

// TestKept_ReusedOnlyForTheSameInput: each write refreshes the read model
// as the engine does (Take under the lock, WriteAfter after it), and the
// Hot it writes is the one a fresh evaluation gives; the rule is evaluated
// again exactly when the facts it reads changed (a priority, a dependency
// done, a claim's status, a new todo) and not for a lease renewed,
// evidence, or a round's claim undone by its finish (the order kept from
// the write before). Verify accepts the file with the orders it keeps,
// and refuses one whose current order was forged (checksums recomputed).
func TestKept_ReusedOnlyForTheSameInput(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	s, err := kernel.Open(dir, kernel.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	path := filepath.Join(t.TempDir(), "readmodel.json")
	evals := 0
	order := Order()
	order.Input = func(todos []records.Todo) (readmodel.OrderInput, error) {
		in, err := Input(todos)
		eval := in.Eval
		in.Eval = func() ([]int, error) { evals++; return eval() }
		return in, err
	}
	var ids []string
	update := func(fn func(tx *kernel.Tx, todos []records.Todo) error) {
		t.Helper()
		if err := s.Update(func(tx *kernel.Tx) error {
			todos, err := tx.Todos("g1")
			if err != nil {
				return err
			}
			return fn(tx, todos)
		}); err != nil {
			t.Fatal(err)
		}
	}
	byID := func(todos []records.Todo, id string) records.Todo {
		for _, td := range todos {
			if td.ID == id {
				return td
			}
		}
		t.Fatalf("no todo %s", id)
		return records.Todo{}
	}
	update(func(tx *kernel.Tx, _ []records.Todo) error {
		for i := range 6 {
			td := records.Todo{Goal: "g1", Title: fmt.Sprintf("todo %d", i), Priority: i % 3}
			if i == 5 {
				td.DependsOn = []string{ids[0]}
			}
			added, err := tx.AddTodo(td)
			ids = append(ids, added.ID)
			if err != nil {
				return err
			}
		}
		return nil
	})
	var last readmodel.Stamp
	steps := []struct {
		name  string
		write func(tx *kernel.Tx, todos []records.Todo) error
		eval  bool
	}{
		{"the first model", func(*kernel.Tx, []records.Todo) error { return nil }, true},
		{"evidence", func(tx *kernel.Tx, _ []records.Todo) error {
			_, err := tx.AddEvidence(records.Evidence{Goal: "g1", Kind: "test", Status: "pass", Summary: "ok"})
			return err
		}, false},
		{"a claim", func(tx *kernel.Tx, todos []records.Todo) error {
			td := byID(todos, ids[1])
			td.Status, td.Lease = records.TodoClaimed, &records.Lease{Holder: "a1", Version: 1, Epoch: 1, ExpiresAt: now.Add(time.Hour)}
			return tx.PutTodo(td)
		}, true},
		{"its lease renewed", func(tx *kernel.Tx, todos []records.Todo) error {
			td := byID(todos, ids[1])
			td.Lease.Version++
			td.Lease.ExpiresAt = now.Add(2 * time.Hour)
			return tx.PutTodo(td)
		}, false},
		{"the round finished, the todo open again", func(tx *kernel.Tx, todos []records.Todo) error {
			td := byID(todos, ids[1])
			td.Status, td.Lease.Released = records.TodoOpen, true
			return tx.PutTodo(td)
		}, false},
		{"a priority changed", func(tx *kernel.Tx, todos []records.Todo) error {
			td := byID(todos, ids[4])
			td.Priority = 0
			return tx.PutTodo(td)
		}, true},
		{"a dependency dropped", func(tx *kernel.Tx, todos []records.Todo) error {
			td := byID(todos, ids[5])
			td.DependsOn = nil
			return tx.PutTodo(td)
		}, true},
		{"a dependency done", func(tx *kernel.Tx, todos []records.Todo) error {
			td := byID(todos, ids[5])
			td.DependsOn = []string{ids[0]}
			if err := tx.PutTodo(td); err != nil {
				return err
			}
			td = byID(todos, ids[0])
			td.Status = records.TodoDone
			return tx.PutTodo(td)
		}, true},
		{"a new todo", func(tx *kernel.Tx, _ []records.Todo) error {
			_, err := tx.AddTodo(records.Todo{Goal: "g1", Title: "new", Priority: 0, DependsOn: []string{ids[3]}})
			return err
		}, true},
	}
	for _, st := range steps {
		update(st.write)
		before := evals
		last = readmodel.Take(s, path, []string{"g1"}, last, order).WriteAfter(s.Path(), last)
		if got := evals - before; got != map[bool]int{true: 1, false: 0}[st.eval] {
			t.Errorf("%s: the rule was evaluated %d times", st.name, got)
		}
		rm := readmodel.Load(path, s.Path(), order.Bundle, now)
		if rm == nil {
			t.Fatalf("%s: no current model", st.name)
		}
		var todos []records.Todo
		if err := s.View(func(tx *kernel.Tx) (err error) { todos, err = tx.Todos("g1"); return err }); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(rm.Goals["g1"].Hot)
		want, _ := json.Marshal(readmodel.HotOf(todos, Order()))
		if string(got) != string(want) {
			t.Fatalf("%s: the model's hot todos differ from a fresh evaluation's:\n%s\n%s", st.name, got, want)
		}
		if ok, err := readmodel.Verify(path, s, []string{"g1"}, Order()); !ok || err != nil {
			t.Fatalf("%s: Verify refused a genuine model: %v", st.name, err)
		}
	}
	// A forged current order (its line's checksum recomputed) fails Verify.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 3)
	var kept map[string][]readmodel.Kept
	if err := json.Unmarshal([]byte(lines[1][:strings.LastIndexByte(lines[1], ' ')]), &kept); err != nil || len(kept["g1"]) != 2 {
		t.Fatalf("kept orders %v: %v", kept, err)
	}
	o := kept["g1"][0].Order
	o[0], o[1] = o[1], o[0]
	doc, _ := json.Marshal(kept)
	lines[1] = string(doc) + " " + sha(doc)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, err := readmodel.Verify(path, s, []string{"g1"}, Order()); ok || err != nil {
		t.Fatalf("Verify accepted a forged order: %v", err)
	}
}

// sha is the lowercase hex SHA-256 of b.
func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// TestFactsOf_AsTodoFacts: over many random goals, the facts Input reads of
// each todo are those inputstate.TodoFacts lists (for any agent at any
// instant), in the same order.
func TestFactsOf_AsTodoFacts(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 7))
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for c := range 300 {
		todos := randomTodos(rng, now)
		got := factsOf(todos)
		all := inputstate.TodoFacts(todos, "a1", now)
		want := make([]fact, len(all))
		for i, f := range all {
			want[i] = fact{Kind: f.Kind, Status: f.Status, Priority: f.Priority, CreatedAt: f.CreatedAt, DepsOpen: f.DepsOpen}
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Fatalf("case %d: factsOf %s, TodoFacts %s", c, g, w)
		}
	}
}
