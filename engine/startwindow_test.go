package engine

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

	"github.com/loopx-dev/loopx/internal/anchor"

	"github.com/loopx-dev/loopx/engine/deciding/claimorder"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/mutating/todos"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

const windowSpec = `agents: {
	a1: {host: "shell", role: "executor"}
	a2: {host: "shell", role: "reviewer"}
	a3: {host: "shell", role: "executor", mode: "monitor_only"}
}
goals: g1: {
	objective: "Decide under the lock as from the store"
	agents: ["a1", "a2", "a3"]
	quota: {window: "24h", rounds: 1000, min_interval: "0s"}
}
`

// randomProject fills a new project's store with a random goal (kinds,
// statuses, priorities and ages with ties, dependencies, for:<agent> and
// review labels, live, expired and released leases of the three agents,
// overlapping scopes, monitors due and not, sometimes a todo gate) and
// returns its root; n todos at most.
func randomProject(t *testing.T, rng *rand.Rand, now time.Time, n int) string {
	t.Helper()
	root := t.TempDir()
	writeSpec(t, root, windowSpec)
	s, err := kernel.Open(filepath.Join(root, scaffold.StateDirName), kernel.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	err = s.Update(func(tx *kernel.Tx) error {
		var ids []string
		for i := range rng.IntN(n + 1) {
			td := records.Todo{Goal: "g1", Title: fmt.Sprintf("todo %d", i),
				Kind:     pick("task", "task", "task", "task", "monitor", "gate", "action"),
				Status:   pick("open", "open", "open", "open", "claimed", "blocked", "done", "cancelled"),
				Priority: rng.IntN(3)}
			if rng.IntN(4) == 0 && i > 0 {
				td.DependsOn = []string{ids[rng.IntN(i)]}
			}
			switch rng.IntN(6) {
			case 0:
				td.Labels = []string{"review"}
			case 1:
				td.Labels = []string{"for:" + pick("a1", "a2", "a3")}
			}
			if rng.IntN(3) == 0 {
				td.Scope = []string{pick("api/**", "api/v2/*.go", "docs/**", "web/**")}
			}
			if rng.IntN(4) == 0 {
				td.Lease = &records.Lease{Holder: pick("a1", "a2", "a3"), Version: 1, Epoch: 1, Round: pick("", "r-1"),
					ExpiresAt: now.Add(time.Duration(rng.IntN(3)-1) * time.Hour), Released: rng.IntN(5) == 0}
			}
			if td.Kind == records.KindMonitor {
				td.NextDueAt = now.Add(time.Duration(rng.IntN(3)-1) * time.Hour)
			}
			added, err := tx.AddTodo(td)
			if err != nil {
				return err
			}
			added.CreatedAt = now.Add(-time.Duration(rng.IntN(3)) * time.Hour)
			if err := tx.PutTodo(added); err != nil {
				return err
			}
			ids = append(ids, added.ID)
		}
		if len(ids) > 0 && rng.IntN(4) == 0 {
			_, err := tx.AddGate(records.Gate{Goal: "g1", Question: "Ship it?", Options: []string{"approve", "reject"},
				Answerers: []string{"human"}, ScopeKind: "todo", ScopeTodos: []string{ids[rng.IntN(len(ids))]}, RaisedBy: "human", RaisedAt: now})
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// decisionJSON is what a decision says, without its id: verdict, todo,
// reasons, quota, next check, revision.
func decisionJSON(d decision.Decision) string {
	b, _ := json.Marshal([]any{d.Verdict, d.Todo, d.Reasons, d.Quota, d.NextCheckAt, d.Revision})
	return string(b)
}

// TestStartRound_DecidesUnderTheLockAsFromTheStore: over many random
// goals, a should_run decided while the engine holds the store (as round
// start decides, under the lock) reads the read model's todo windows when
// the model describes the store it holds, and decides exactly as over
// every todo read from the store, for each agent; round start then opens
// its round on the todo that full decision selects.
func TestStartRound_DecidesUnderTheLockAsFromTheStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	rng := rand.New(rand.NewPCG(15, 2))
	windowed, started := 0, 0
	for c := range 40 {
		root := randomProject(t, rng, now, 90)
		warm := New(Options{Root: root, StateHome: stateHome(root), Now: clock})
		if _, err := warm.Decide(ctx, Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"}); err != nil {
			t.Fatal(err)
		}
		warm.Close() // writes the read model
		e := New(Options{Root: root, StateHome: stateHome(root), Now: clock})
		if _, err := e.Store(); err != nil {
			t.Fatal(err)
		}
		rm := e.sess.loadReadModel(now)
		if rm == nil {
			t.Fatalf("case %d: the read model does not describe the store held", c)
		}
		full := map[string]decision.Decision{}
		for _, agent := range []string{"a1", "a2", "a3"} {
			req := Request{Query: query.ShouldRun, Goal: "g1", Agent: agent}
			in, _, err := e.inputFrom(nil, req, now, 0) // every todo, from the store
			if err != nil {
				t.Fatal(err)
			}
			want := e.evaluate(ctx, req, in)
			e.finishDecision(&want, req, in)
			full[agent] = want
			if w, partial, _ := e.inputFrom(rm, req, now, claimorder.First); partial && len(w.State.Todos) < len(in.State.Todos) {
				windowed++
			}
			got, err := e.Decide(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if decisionJSON(got) != decisionJSON(want) {
				t.Fatalf("case %d, agent %s: under the lock from the read model\n%s\nfrom the store\n%s\ntodos: %s",
					c, agent, decisionJSON(got), decisionJSON(want), dumpFacts(in.State.Todos))
			}
		}
		agent := []string{"a1", "a2", "a3"}[rng.IntN(3)]
		res, err := e.StartRound(ctx, "g1", agent)
		if err != nil {
			t.Fatalf("case %d: round start for %s: %v", c, agent, err)
		}
		if decisionJSON(res.Decision) != decisionJSON(full[agent]) {
			t.Fatalf("case %d: round start for %s decided\n%s\nfrom the store\n%s", c, agent, decisionJSON(res.Decision), decisionJSON(full[agent]))
		}
		if res.Round != nil {
			started++
			if res.Todo.ID != full[agent].Todo.ID {
				t.Fatalf("case %d: the round claimed %s, the full decision selected %s", c, res.Todo.ID, full[agent].Todo.ID)
			}
		}
		e.Close()
	}
	if windowed < 10 || started < 10 {
		t.Fatalf("too few cases exercised: %d decisions over a partial window, %d rounds started", windowed, started)
	}
}

// dumpFacts is todos as JSON (a failure's context).
func dumpFacts(todos []input.TodoFacts) string {
	b, _ := json.Marshal(todos)
	return string(b)
}

// TestStartRound_StaleReadModelNotUsedUnderTheLock: a read model that no
// longer describes the store held — another process committed after it
// was written, or this engine committed since it opened the store — is
// not read under the lock: the decision reads the store and selects the
// todo the later commit added.
func TestStartRound_StaleReadModelNotUsedUnderTheLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		commit func(t *testing.T, e *Engine, root string)
	}{
		{"another process committed", func(t *testing.T, _ *Engine, root string) {
			adir, err := anchor.DirIn(stateHome(root), root)
			if err != nil {
				t.Fatal(err)
			}
			s, err := kernel.Open(filepath.Join(root, scaffold.StateDirName), kernel.Options{AnchorDir: adir})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Update(func(tx *kernel.Tx) error {
				_, err := tx.AddTodo(records.Todo{Goal: "g1", Title: "urgent", Priority: 0})
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}},
		{"this engine committed", func(t *testing.T, e *Engine, _ string) {
			if _, err := e.Store(); err != nil {
				t.Fatal(err)
			}
			if _, err := e.AddTodo(todos.Input{Goal: "g1", Title: "urgent", Priority: 0}); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, clock := newEngine(t, testSpec)
			addTodos(t, e, "a", "b")
			e = reopen(t, e, clock)
			decide(t, e, "a1")
			e = reopen(t, e, clock) // the read model written, current
			c.commit(t, e, e.Root())
			if _, err := e.Store(); err != nil {
				t.Fatal(err)
			}
			if e.sess.loadReadModel(clock.Now()) != nil {
				t.Fatal("a read model of an earlier commit describes the store held")
			}
			res, err := e.StartRound(ctx, "g1", "a1")
			if err != nil || res.Todo == nil || res.Todo.Title != "urgent" {
				t.Fatalf("round start claimed %+v (%v), want the todo committed last", res.Todo, err)
			}
		})
	}
}

// TestClaim_DecidesWithoutTheTodos: the built-in claim rules read no todo
// of input.state.todos (claims inside a transaction leave them out unless
// a user policy may read them, TestUserPolicy_ClaimTodosOnlyWhenRead):
// over many random goals, every op's claim
// decision on every todo for every agent is the same with and without the
// goal's todos.
func TestClaim_DecidesWithoutTheTodos(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(15, 3))
	decided := 0
	for range 12 {
		root := randomProject(t, rng, now, 20)
		e := New(Options{Root: root, StateHome: stateHome(root), Now: func() time.Time { return now }})
		err := e.view(func(tx *kernel.Tx) error {
			todos, err := tx.Todos("g1")
			if err != nil {
				return err
			}
			for _, td := range todos {
				for _, agent := range []string{"a1", "a2", "a3"} {
					facts, err := e.claimTodoFacts(tx, td, agent)
					if err != nil {
						return err
					}
					op := []string{"claim", "round_start", "transfer"}[rng.IntN(3)]
					cf := input.ClaimFacts{Op: op, Todo: facts}
					if op == "transfer" {
						cf.From = "a2"
					}
					req := Request{Query: query.Claim, Goal: "g1", Agent: agent}
					var ds [2]string
					for i, with := range []bool{true, false} {
						in := input.Input{Query: "claim", Now: records.RFC3339(now), Goal: "g1", Agent: agent, Claim: &cf}
						if in.State, err = e.rules.facts().Of(tx, "g1", agent, now, inputstate.Need{Todos: with}); err != nil {
							return err
						}
						if with && len(in.State.Todos) == 0 && len(todos) > 0 && td.Status != records.TodoDone && td.Status != records.TodoCancelled {
							return fmt.Errorf("no todos listed")
						}
						d := e.evaluate(ctx, req, in)
						ds[i] = decisionJSON(d)
					}
					if ds[0] != ds[1] {
						return fmt.Errorf("claim %s of %s by %s: with the todos\n%s\nwithout\n%s", op, td.ID, agent, ds[0], ds[1])
					}
					decided++
				}
			}
			return nil
		})
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if decided < 100 {
		t.Fatalf("only %d claim decisions compared", decided)
	}
}

// TestStartRound_ForgedReadModelDecidesFromTheStore: a read model
// rewritten with its checksums recomputed (a process outside a sandbox
// can) that lists a done todo as open at the head of the claim order, and
// no lease, is believed by a read-only decide, but round start, under the
// lock, reads every fact from the store: the window's todo is not the
// store's record, so it decides over every todo, as from the store, and
// claims the todo the store says comes first.
func TestStartRound_ForgedReadModelDecidesFromTheStore(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	ts := addTodos(t, e, "a", "b", "shipped")
	if _, err := e.SetTodoStatus(ts[2].ID, records.TodoDone, "", ""); err != nil {
		t.Fatal(err)
	}
	e = reopen(t, e, c)
	decide(t, e, "a1")
	e = reopen(t, e, c) // the read model written, current
	path := e.sess.readModelPath()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 2)
	core := lines[0][:strings.LastIndexByte(lines[0], ' ')]
	var rm readmodel.Model
	if err := json.Unmarshal([]byte(core), &rm); err != nil {
		t.Fatal(err)
	}
	forged := ts[2]
	forged.Priority = 0
	hot := rm.Goals["g1"].Hot
	hot.Head = append([]readmodel.HotTodo{{Todo: forged, Index: 0, DepsOpen: []string{}}}, hot.Head...)
	hot.Open, hot.Order = hot.Open+1, hot.Order+1
	doc, err := json.Marshal(rm)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(doc)
	if err := os.WriteFile(path, []byte(string(doc)+" "+hex.EncodeToString(sum[:])+"\n"+lines[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	if d := decide(t, e, "a1"); d.Todo == nil || d.Todo.ID != forged.ID {
		t.Fatalf("the forged model was not the one read (decide selected %+v): the test forges nothing", d.Todo)
	}
	res, err := e.StartRound(context.Background(), "g1", "a1")
	if err != nil || res.Todo == nil || res.Todo.ID != ts[0].ID {
		t.Fatalf("round start claimed %+v (%v), want %s, the store's first todo", res.Todo, err, ts[0].ID)
	}
}
