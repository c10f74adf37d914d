package housekeep

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// fakeTx is an in-memory Tx: gates and todos per goal, the events
// appended, and an error to return from one method (failOn).
type fakeTx struct {
	now    time.Time
	todos  map[string][]records.Todo
	gates  map[string][]records.Gate
	events []records.Event
	added  []string // ids of gates added, in order
	puts   []string // ids of gates put, in order
	failOn string   // method name that fails with errTx
	seq    uint64
}

var errTx = errors.New("tx failed")

func newFake(now time.Time, gates []records.Gate, todos []records.Todo) *fakeTx {
	f := &fakeTx{now: now, todos: map[string][]records.Todo{}, gates: map[string][]records.Gate{}}
	for _, g := range gates {
		f.gates[g.Goal] = append(f.gates[g.Goal], g)
	}
	for _, t := range todos {
		f.todos[t.Goal] = append(f.todos[t.Goal], t)
	}
	return f
}

func (f *fakeTx) Now() time.Time { return f.now }

func (f *fakeTx) Todos(goal string) ([]records.Todo, error) {
	if f.failOn == "Todos" {
		return nil, errTx
	}
	return slices.Clone(f.todos[goal]), nil
}

func (f *fakeTx) AddTodo(t records.Todo) (records.Todo, error) {
	if f.failOn == "AddTodo" {
		return records.Todo{}, errTx
	}
	f.seq++
	t.ID, t.Seq, t.Status, t.CreatedAt, t.UpdatedAt = fmt.Sprintf("t-%d", f.seq), f.seq, records.TodoOpen, f.now, f.now
	f.todos[t.Goal] = append(f.todos[t.Goal], t)
	return t, nil
}

func (f *fakeTx) Gates(goal string) ([]records.Gate, error) {
	if f.failOn == "Gates" {
		return nil, errTx
	}
	return slices.Clone(f.gates[goal]), nil
}

func (f *fakeTx) AddGate(g records.Gate) (records.Gate, error) {
	if f.failOn == "AddGate" {
		return records.Gate{}, errTx
	}
	f.seq++
	g.Seq = f.seq
	f.gates[g.Goal] = append(f.gates[g.Goal], g)
	f.added = append(f.added, g.ID)
	return g, nil
}

func (f *fakeTx) PutGate(g records.Gate) error {
	if f.failOn == "PutGate" {
		return errTx
	}
	for i, have := range f.gates[g.Goal] {
		if have.ID == g.ID {
			f.gates[g.Goal][i] = g
			f.puts = append(f.puts, g.ID)
			return nil
		}
	}
	return fmt.Errorf("put of unknown gate %s", g.ID)
}

func (f *fakeTx) AppendEvent(e records.Event) error {
	if f.failOn == "AppendEvent" {
		return errTx
	}
	f.events = append(f.events, e)
	return nil
}

// gateLine summarises a stored gate: id, status, question, expiry and
// answer (option, by, note, at).
func gateLine(g records.Gate) string {
	s := fmt.Sprintf("%s %s q=%q exp=%s", g.ID, g.Status, g.Question, records.RFC3339(g.ExpiresAt))
	if g.Answer != nil {
		s += fmt.Sprintf(" ans=%s/%s/%s/%s", g.Answer.Option, g.Answer.By, g.Answer.Note, records.RFC3339(g.Answer.At))
	}
	return s
}

func spec(goals map[string]specs.Goal) *specs.Spec { return &specs.Spec{Goals: goals} }

// TestGates: every behaviour of Gates, one row each, judged on the gates
// stored afterwards, the gates added and the audit events appended.
func TestGates(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	raised := now.Add(-time.Hour)
	nowS, raisedS := records.RFC3339(now), records.RFC3339(raised)
	zero := records.RFC3339(time.Time{})
	deploy := specs.Gate{Question: "deploy?", Options: []string{"approve", "reject"}, Answerers: []string{"human"}}
	timed := deploy
	timed.ExpiresAfterSeconds = 600
	// stored is the instance of spec gate g1/<name> raised at raised.
	stored := func(name string, sg specs.Gate) records.Gate { return inputstate.SpecGate("g1", name, sg, raised) }
	runtime := func(id string, mod func(*records.Gate)) records.Gate {
		g := records.Gate{ID: id, Goal: "g1", Question: "q", Options: []string{"approve", "reject"}, Answerers: []string{"human"},
			ScopeKind: "goal", Status: records.GateOpen, RaisedBy: "agent:a", RaisedAt: raised}
		mod(&g)
		return g
	}
	todoGate := func(id string, todos ...string) records.Gate {
		return runtime(id, func(g *records.Gate) { g.ScopeKind, g.ScopeTodos = "todo", todos })
	}
	for _, c := range []struct {
		name   string
		spec   *specs.Spec
		goals  []string
		gates  []records.Gate
		todos  []records.Todo
		want   []string // gateLine of every stored gate of g1, in store order
		added  []string
		events []string // "kind subject"
	}{
		{
			name:  "spec gate materialised, raised now, expiry counted from now, in name order",
			spec:  spec(map[string]specs.Goal{"g1": {Gates: map[string]specs.Gate{"b": timed, "a": deploy}}}),
			goals: []string{"g1"},
			want: []string{
				`g1/a open q="deploy?" exp=` + zero,
				`g1/b open q="deploy?" exp=` + records.RFC3339(now.Add(600*time.Second)),
			},
			added: []string{"g1/a", "g1/b"},
		},
		{
			name:  "materialised spec gate not added again",
			spec:  spec(map[string]specs.Goal{"g1": {Gates: map[string]specs.Gate{"a": deploy}}}),
			goals: []string{"g1"},
			gates: []records.Gate{stored("a", deploy)},
			want:  []string{`g1/a open q="deploy?" exp=` + zero},
		},
		{
			name:  "answered spec gate not materialised again",
			spec:  spec(map[string]specs.Goal{"g1": {Gates: map[string]specs.Gate{"a": deploy}}}),
			goals: []string{"g1"},
			gates: []records.Gate{func() records.Gate { g := stored("a", deploy); g.Status = "approve"; return g }()},
			want:  []string{`g1/a approve q="deploy?" exp=` + zero},
		},
		{
			name:  "goal not listed is left alone",
			spec:  spec(map[string]specs.Goal{"g1": {Gates: map[string]specs.Gate{"a": deploy}}, "g2": {}}),
			goals: []string{"g2"},
		},
		{
			name:   "open spec gate removed from the spec is cancelled",
			spec:   spec(map[string]specs.Goal{"g1": {}}),
			goals:  []string{"g1"},
			gates:  []records.Gate{stored("a", deploy)},
			want:   []string{`g1/a cancelled q="deploy?" exp=` + zero + ` ans=cancelled/loopx/removed from the spec/` + nowS},
			events: []string{"gate.cancelled g1/a"},
		},
		{
			name:  "answered spec gate removed from the spec is kept",
			spec:  spec(map[string]specs.Goal{"g1": {}}),
			goals: []string{"g1"},
			gates: []records.Gate{func() records.Gate { g := stored("a", deploy); g.Status = "reject"; return g }()},
			want:  []string{`g1/a reject q="deploy?" exp=` + zero},
		},
		{
			name:   "open spec gate follows a changed question",
			spec:   spec(map[string]specs.Goal{"g1": {Gates: map[string]specs.Gate{"a": {Question: "ship?", Options: deploy.Options, Answerers: deploy.Answerers}}}}),
			goals:  []string{"g1"},
			gates:  []records.Gate{stored("a", deploy)},
			want:   []string{`g1/a open q="ship?" exp=` + zero},
			events: []string{"gate.updated g1/a"},
		},
		{
			name:   "open spec gate follows a new expiry, counted from its raise",
			spec:   spec(map[string]specs.Goal{"g1": {Gates: map[string]specs.Gate{"a": func() specs.Gate { g := deploy; g.ExpiresAfterSeconds = 7200; return g }()}}}),
			goals:  []string{"g1"},
			gates:  []records.Gate{stored("a", deploy)},
			want:   []string{`g1/a open q="deploy?" exp=` + records.RFC3339(raised.Add(2*time.Hour))},
			events: []string{"gate.updated g1/a"},
		},
		{
			name:   "spec gate following a shorter expiry already past expires now",
			spec:   spec(map[string]specs.Goal{"g1": {Gates: map[string]specs.Gate{"a": func() specs.Gate { g := timed; g.ExpiresAfterSeconds = 60; return g }()}}}),
			goals:  []string{"g1"},
			gates:  []records.Gate{stored("a", timed)},
			want:   []string{`g1/a expired q="deploy?" exp=` + records.RFC3339(raised.Add(time.Minute)) + ` ans=expired/loopx/expired/` + nowS},
			events: []string{"gate.updated g1/a", "gate.expired g1/a"},
		},
		{
			name:  "runtime gate (no name) is not judged against the spec",
			spec:  spec(map[string]specs.Goal{"g1": {}}),
			goals: []string{"g1"},
			gates: []records.Gate{runtime("gate-1", func(*records.Gate) {})},
			want:  []string{`gate-1 open q="q" exp=` + zero},
		},
		{
			name:   "open gate past expires_at expires",
			spec:   spec(map[string]specs.Goal{"g1": {}}),
			goals:  []string{"g1"},
			gates:  []records.Gate{runtime("gate-1", func(g *records.Gate) { g.ExpiresAt = now.Add(-time.Second) })},
			want:   []string{`gate-1 expired q="q" exp=` + records.RFC3339(now.Add(-time.Second)) + ` ans=expired/loopx/expired/` + nowS},
			events: []string{"gate.expired gate-1"},
		},
		{
			name:   "open gate expires at exactly expires_at",
			spec:   spec(map[string]specs.Goal{"g1": {}}),
			goals:  []string{"g1"},
			gates:  []records.Gate{runtime("gate-1", func(g *records.Gate) { g.ExpiresAt = now })},
			want:   []string{`gate-1 expired q="q" exp=` + nowS + ` ans=expired/loopx/expired/` + nowS},
			events: []string{"gate.expired gate-1"},
		},
		{
			name:  "open gate before expires_at stays open",
			spec:  spec(map[string]specs.Goal{"g1": {}}),
			goals: []string{"g1"},
			gates: []records.Gate{runtime("gate-1", func(g *records.Gate) { g.ExpiresAt = now.Add(time.Second) })},
			want:  []string{`gate-1 open q="q" exp=` + records.RFC3339(now.Add(time.Second))},
		},
		{
			name:   "open gate expiring applies on_expiry",
			spec:   spec(map[string]specs.Goal{"g1": {}}),
			goals:  []string{"g1"},
			gates:  []records.Gate{runtime("gate-1", func(g *records.Gate) { g.ExpiresAt, g.OnExpiry = raised, "reject" })},
			want:   []string{`gate-1 reject q="q" exp=` + raisedS + ` ans=reject/loopx/expired/` + nowS},
			events: []string{"gate.expired gate-1"},
		},
		{
			name:  "closed gate past expires_at is kept",
			spec:  spec(map[string]specs.Goal{"g1": {}}),
			goals: []string{"g1"},
			gates: []records.Gate{runtime("gate-1", func(g *records.Gate) { g.ExpiresAt, g.Status = raised, "approve" })},
			want:  []string{`gate-1 approve q="q" exp=` + raisedS},
		},
		{
			name:   "todo gate whose todos are all gone is cancelled",
			spec:   spec(map[string]specs.Goal{"g1": {}}),
			goals:  []string{"g1"},
			gates:  []records.Gate{todoGate("gate-1", "t-1", "t-2")},
			todos:  []records.Todo{{ID: "t-3", Goal: "g1", Status: records.TodoOpen}},
			want:   []string{`gate-1 cancelled q="q" exp=` + zero + ` ans=cancelled/loopx/every todo the gate waits on is gone/` + nowS},
			events: []string{"gate.cancelled gate-1"},
		},
		{
			name:   "todo gate whose todos are all cancelled is cancelled",
			spec:   spec(map[string]specs.Goal{"g1": {}}),
			goals:  []string{"g1"},
			gates:  []records.Gate{todoGate("gate-1", "t-1")},
			todos:  []records.Todo{{ID: "t-1", Goal: "g1", Status: records.TodoCancelled}},
			want:   []string{`gate-1 cancelled q="q" exp=` + zero + ` ans=cancelled/loopx/every todo the gate waits on is gone/` + nowS},
			events: []string{"gate.cancelled gate-1"},
		},
		{
			name:  "todo gate with one todo left (even done) stays open",
			spec:  spec(map[string]specs.Goal{"g1": {}}),
			goals: []string{"g1"},
			gates: []records.Gate{todoGate("gate-1", "t-1", "t-2")},
			todos: []records.Todo{{ID: "t-1", Goal: "g1", Status: records.TodoCancelled}, {ID: "t-2", Goal: "g1", Status: records.TodoDone}},
			want:  []string{`gate-1 open q="q" exp=` + zero},
		},
		{
			name:  "todo gate naming a spec todo by its spec name stays open",
			spec:  spec(map[string]specs.Goal{"g1": {}}),
			goals: []string{"g1"},
			gates: []records.Gate{todoGate("gate-1", "review")},
			todos: []records.Todo{{ID: "t-9", Goal: "g1", Status: records.TodoOpen, SpecName: "review"}},
			want:  []string{`gate-1 open q="q" exp=` + zero},
		},
		{
			name:   "todo gate whose todo lives in another goal is cancelled",
			spec:   spec(map[string]specs.Goal{"g1": {}}),
			goals:  []string{"g1"},
			gates:  []records.Gate{todoGate("gate-1", "t-1")},
			todos:  []records.Todo{{ID: "t-1", Goal: "g2", Status: records.TodoOpen}},
			want:   []string{`gate-1 cancelled q="q" exp=` + zero + ` ans=cancelled/loopx/every todo the gate waits on is gone/` + nowS},
			events: []string{"gate.cancelled gate-1"},
		},
		{
			name:  "goal-scoped gate with no todos is not cancelled for lack of them",
			spec:  spec(map[string]specs.Goal{"g1": {}}),
			goals: []string{"g1"},
			gates: []records.Gate{runtime("gate-1", func(g *records.Gate) { g.ScopeTodos = []string{"t-1"} })},
			want:  []string{`gate-1 open q="q" exp=` + zero},
		},
		{
			name:   "expired todo gate records expiry, not cancellation",
			spec:   spec(map[string]specs.Goal{"g1": {}}),
			goals:  []string{"g1"},
			gates:  []records.Gate{func() records.Gate { g := todoGate("gate-1", "t-1"); g.ExpiresAt = raised; return g }()},
			want:   []string{`gate-1 expired q="q" exp=` + raisedS + ` ans=expired/loopx/expired/` + nowS},
			events: []string{"gate.expired gate-1"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			tx := newFake(now, c.gates, c.todos)
			if err := Gates(tx, inputstate.Builder{Spec: c.spec}, c.goals); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range tx.gates["g1"] {
				got = append(got, gateLine(g))
			}
			var events []string
			for _, e := range tx.events {
				events = append(events, e.Kind+" "+e.Subject)
				if e.Actor != "loopx" || e.Goal != "g1" || e.Message == "" {
					t.Errorf("event %+v: want actor loopx, goal g1, a message", e)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("gates:\n got %q\nwant %q", got, c.want)
			}
			if !slices.Equal(tx.added, c.added) {
				t.Errorf("added %q, want %q", tx.added, c.added)
			}
			if !slices.Equal(events, c.events) {
				t.Errorf("events %q, want %q", events, c.events)
			}
			if len(tx.puts) != len(c.events) {
				t.Errorf("%d gates put for %d events: every change has its audit event", len(tx.puts), len(c.events))
			}
		})
	}
}

// TestGates_TxErrors: an error of any Tx method is returned as is.
func TestGates_TxErrors(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	sp := spec(map[string]specs.Goal{"g1": {Gates: map[string]specs.Gate{"a": {Question: "deploy?"}}}})
	gates := []records.Gate{{ID: "gate-1", Goal: "g1", Status: records.GateOpen, ScopeKind: "todo", ScopeTodos: []string{"t-1"}}}
	for _, m := range []string{"Gates", "AddGate", "Todos", "PutGate", "AppendEvent"} {
		tx := newFake(now, gates, nil)
		tx.failOn = m
		if err := Gates(tx, inputstate.Builder{Spec: sp}, []string{"g1"}); !errors.Is(err, errTx) {
			t.Errorf("%s failing: %v, want %v", m, err, errTx)
		}
	}
}

// TestSeedTodos: every behaviour of SeedTodos, one row each, judged on
// the todos stored afterwards in order.
func TestSeedTodos(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	line := func(t records.Todo) string {
		return fmt.Sprintf("%s %s %q kind=%s P%d spec=%s every=%d by=%s", t.Goal, t.ID, t.Title, t.Kind, t.Priority, t.SpecName, t.EverySeconds, t.CreatedBy)
	}
	for _, c := range []struct {
		name  string
		spec  *specs.Spec
		todos []records.Todo
		want  []string
	}{
		{name: "broken spec seeds nothing", spec: nil},
		{
			name: "spec todos seeded with their fields, goals then names in order",
			spec: spec(map[string]specs.Goal{
				"g2": {Todos: map[string]specs.TodoSpec{"poll": {Title: "poll CI", Kind: "monitor", Priority: "P1", EverySeconds: 900}}},
				"g1": {Todos: map[string]specs.TodoSpec{"b": {Title: "B", Kind: "task", Priority: "P3"}, "a": {Title: "A", Kind: "task", Priority: "P0"}}},
			}),
			want: []string{
				`g1 t-1 "A" kind=task P0 spec=a every=0 by=spec`,
				`g1 t-2 "B" kind=task P3 spec=b every=0 by=spec`,
				`g2 t-3 "poll CI" kind=monitor P1 spec=poll every=900 by=spec`,
			},
		},
		{
			name:  "todo already seeded (matched by spec name, whatever its status) is not seeded again",
			spec:  spec(map[string]specs.Goal{"g1": {Todos: map[string]specs.TodoSpec{"a": {Title: "A"}, "b": {Title: "B"}}}}),
			todos: []records.Todo{{ID: "t-old", Goal: "g1", Title: "A", SpecName: "a", Status: records.TodoCancelled}},
			want: []string{
				`g1 t-old "A" kind= P0 spec=a every=0 by=`,
				`g1 t-1 "B" kind= P2 spec=b every=0 by=spec`,
			},
		},
		{
			name:  "a todo of the same title but no spec name does not count",
			spec:  spec(map[string]specs.Goal{"g1": {Todos: map[string]specs.TodoSpec{"a": {Title: "A"}}}}),
			todos: []records.Todo{{ID: "t-old", Goal: "g1", Title: "A", Priority: 2}},
			want: []string{
				`g1 t-old "A" kind= P2 spec= every=0 by=`,
				`g1 t-1 "A" kind= P2 spec=a every=0 by=spec`,
			},
		},
		{
			name:  "a todo of the same spec name in another goal does not count",
			spec:  spec(map[string]specs.Goal{"g1": {Todos: map[string]specs.TodoSpec{"a": {Title: "A"}}}}),
			todos: []records.Todo{{ID: "t-old", Goal: "g2", Title: "A", SpecName: "a", Priority: 2}},
			want: []string{
				`g1 t-1 "A" kind= P2 spec=a every=0 by=spec`,
				`g2 t-old "A" kind= P2 spec=a every=0 by=`,
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			tx := newFake(now, nil, c.todos)
			if err := SeedTodos(tx, c.spec); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range []string{"g1", "g2"} {
				for _, td := range tx.todos[g] {
					got = append(got, line(td))
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("todos:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestSeedTodos_Priority: the spec's "P0".."P4" (either case) become 0..4;
// anything else is the default 2.
func TestSeedTodos_Priority(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"P0", 0}, {"P4", 4}, {"p1", 1}, {"", 2}, {"P5", 2}, {"P", 2}, {"P10", 2}, {"X1", 2}, {"1", 2},
	} {
		tx := newFake(time.Time{}, nil, nil)
		if err := SeedTodos(tx, spec(map[string]specs.Goal{"g1": {Todos: map[string]specs.TodoSpec{"a": {Title: "A", Priority: c.in}}}})); err != nil {
			t.Fatal(err)
		}
		if got := tx.todos["g1"]; len(got) != 1 || got[0].Priority != c.want {
			t.Errorf("priority %q: %+v, want P%d", c.in, got, c.want)
		}
	}
}

// TestSeedTodos_TxErrors: an error of Todos or AddTodo is returned as is.
func TestSeedTodos_TxErrors(t *testing.T) {
	sp := spec(map[string]specs.Goal{"g1": {Todos: map[string]specs.TodoSpec{"a": {Title: "A"}}}})
	for _, m := range []string{"Todos", "AddTodo"} {
		tx := newFake(time.Time{}, nil, nil)
		tx.failOn = m
		if err := SeedTodos(tx, sp); !errors.Is(err, errTx) {
			t.Errorf("%s failing: %v, want %v", m, err, errTx)
		}
	}
}
