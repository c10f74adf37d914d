package claimorder

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/policies"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// TestTodoWindow_SelectsAsAllTodosDo: over many random goals (kinds,
// statuses, priorities and creation times with ties, dependencies,
// for:<agent> and review labels, live, expired and released leases of
// several agents, overlapping scopes, monitors due and not, todo gates,
// reviewer and monitor_only agents, no-change rounds), should_run decided
// over a window of the claim order (TodoWindow, as a decision reads it)
// is exactly should_run decided over every todo whenever the window holds
// a todo the agent may claim; when it holds none (no_todo) the engine
// decides again over every todo, and a window that is the whole list is
// always exact.
func TestTodoWindow_SelectsAsAllTodosDo(t *testing.T) {
	ctx := context.Background()
	pq := runQuery(t)
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(15, 2026))
	agents := []input.AgentFacts{
		{ID: "a1", Known: true, Role: "executor", Mode: "active", Goals: []string{}},
		{ID: "a2", Known: true, Role: "reviewer", Mode: "active", Goals: []string{}},
		{ID: "a3", Known: true, Role: "executor", Mode: "monitor_only", Goals: []string{}},
	}
	decide := func(in input.Input) string {
		v, err := input.Value(in)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := pq.Eval(ctx, rego.EvalParsedInput(v))
		if err != nil || len(rs) != 1 {
			t.Fatalf("eval: %v", err)
		}
		b, _ := json.Marshal(rs[0].Expressions[0].Value)
		return string(b)
	}
	windowed, exact, fellBack := 0, 0, 0
	for c := range 150 {
		todos := randomTodos(rng, now)
		h := readmodel.HotOf(todos, Order())
		if h == nil {
			t.Fatalf("case %d: no claim order", c)
		}
		rm := &readmodel.Model{Goals: map[string]*readmodel.GoalModel{"g1": {Hot: h}}}
		gates := randomGates(rng, todos)
		for _, a := range agents {
			base := input.Input{Query: "should_run", Now: records.RFC3339(now), Goal: "g1", Agent: a.ID,
				State: input.Snapshot{Goal: input.GoalFacts{ID: "g1", InSpec: true, Status: "active"}, Agent: a,
					Gates: gates, Quota: input.QuotaFacts{MinIntervalElapsed: true}}}
			if len(todos) > 0 && rng.IntN(3) == 0 {
				base.State.Progress = input.ProgressFacts{LastOutcome: "no_change", LastTodo: todos[rng.IntN(len(todos))].ID}
			}
			full := base
			full.State.Todos = inputstate.TodoFacts(todos, a.ID, now)
			want := decide(full)
			for _, least := range []int{1, 2, 3, 5, 8} {
				w, ok := rm.TodoWindow("g1", least)
				if !ok {
					continue
				}
				in := base
				in.State.Todos = inputstate.WindowFacts(w, a.ID, now)
				got := decide(in)
				windowed++
				var d struct {
					Reasons []struct{ Rule string }
				}
				_ = json.Unmarshal([]byte(got), &d)
				noTodo := len(d.Reasons) > 0 && d.Reasons[0].Rule == "data.loopx.run.no_todo"
				if w.Partial && noTodo {
					fellBack++
					continue
				}
				exact++
				if got != want {
					t.Fatalf("case %d, agent %s, window %d (partial %v):\nwindow: %s\nall:    %s\ntodos: %s",
						c, a.ID, least, w.Partial, got, want, dump(full.State.Todos))
				}
			}
		}
	}
	if exact < 400 || fellBack == 0 {
		t.Fatalf("too few cases exercised: %d windows, %d exact, %d fell back", windowed, exact, fellBack)
	}
}

// randomTodos is a goal's random todos at now (store order).
func randomTodos(rng *rand.Rand, now time.Time) []records.Todo {
	n := rng.IntN(24)
	todos := make([]records.Todo, n)
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	for i := range todos {
		t := records.Todo{ID: fmt.Sprintf("t-%02d", i), Goal: "g1", Title: fmt.Sprintf("todo %d", i),
			Kind:      pick("task", "task", "task", "monitor", "gate", "action"),
			Status:    pick("open", "open", "open", "claimed", "blocked", "done", "cancelled"),
			Priority:  rng.IntN(3),
			CreatedAt: now.Add(-time.Duration(rng.IntN(3)) * time.Hour)}
		if rng.IntN(4) == 0 && i > 0 {
			t.DependsOn = []string{fmt.Sprintf("t-%02d", rng.IntN(i))}
		}
		switch rng.IntN(6) {
		case 0:
			t.Labels = []string{"review"}
		case 1:
			t.Labels = []string{"for:" + pick("a1", "a2", "a3")}
		}
		if rng.IntN(3) == 0 {
			t.Scope = []string{pick("api/**", "api/v2/*.go", "docs/**", "web/**")}
		}
		if rng.IntN(3) == 0 {
			exp := now.Add(time.Duration(rng.IntN(3)-1) * time.Hour)
			t.Lease = &records.Lease{Holder: pick("a1", "a2", "a3"), Version: 1, Epoch: 1, ExpiresAt: exp, Released: rng.IntN(5) == 0, Round: pick("", "r-1")}
		}
		if t.Kind == records.KindMonitor {
			t.NextDueAt = now.Add(time.Duration(rng.IntN(3)-1) * time.Hour)
		}
		todos[i] = t
	}
	return todos
}

// randomGates are open gates of the goal: sometimes a todo gate naming a
// random todo.
func randomGates(rng *rand.Rand, todos []records.Todo) []input.GateFacts {
	gates := []input.GateFacts{}
	if len(todos) > 0 && rng.IntN(3) == 0 {
		gates = append(gates, input.GateFacts{ID: "g-1", Question: "Ship it?", Options: []string{"approve"}, Guards: []string{},
			Scope: input.GateScope{Kind: "todo", Agents: []string{}, Todos: []string{todos[rng.IntN(len(todos))].ID}}})
	}
	return gates
}

func dump(todos []input.TodoFacts) string {
	b, _ := json.Marshal(todos)
	return string(b)
}

// runQuery prepares the built-in should_run query over a spec with goal
// g1 for agents a1, a2 and a3.
func runQuery(t *testing.T) *rego.PreparedEvalQuery {
	t.Helper()
	spec := map[string]any{"goals": map[string]any{"g1": map[string]any{"agents": []any{"a1", "a2", "a3"},
		"quota": map[string]any{"window": "24h", "rounds": 100}}}}
	opts := []func(*rego.Rego){rego.Query(query.ShouldRun.Entry), rego.StrictBuiltinErrors(true),
		rego.Store(inmem.NewFromObject(map[string]any{"loopx": map[string]any{"spec": spec}}))}
	for path, src := range policies.EntryModules(query.ShouldRun.Entry) {
		opts = append(opts, rego.Module(path, src))
	}
	pq, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &pq
}
