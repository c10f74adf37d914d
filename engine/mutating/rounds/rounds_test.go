package rounds

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// fakeTx is an in-memory Tx: records by id, appended ledger entries,
// handoffs, evidence and events, and sequential ids.
type fakeTx struct {
	now      time.Time
	rounds   []records.Round
	todos    []records.Todo
	gates    []records.Gate
	agents   map[string]records.Agent
	ledger   []records.LedgerEntry
	handoffs []records.Handoff
	evidence []records.Evidence
	events   []records.Event
	seq      uint64
}

func newFake(now time.Time) *fakeTx { return &fakeTx{now: now, agents: map[string]records.Agent{}} }

func (f *fakeTx) id(kind string) string { f.seq++; return fmt.Sprintf("%s-%d", kind, f.seq) }

func (f *fakeTx) Now() time.Time   { return f.now }
func (f *fakeTx) Revision() uint64 { return f.seq }

func (f *fakeTx) AddRound(r records.Round) (records.Round, error) {
	r.ID, r.Status, r.StartedAt = f.id("round"), records.RoundOpen, f.now
	f.rounds = append(f.rounds, r)
	return r, nil
}

func (f *fakeTx) Round(id string) (records.Round, error) {
	for _, r := range f.rounds {
		if r.ID == id {
			return r, nil
		}
	}
	return records.Round{}, kernel.ErrNotFound
}

func (f *fakeTx) Rounds(goal string) ([]records.Round, error) {
	var out []records.Round
	for _, r := range f.rounds {
		if r.Goal == goal {
			out = append(out, r)
		}
	}
	return out, nil
}

// HotRounds are every round of goal: a superset of the hot ones.
func (f *fakeTx) HotRounds(goal string) ([]records.Round, error) { return f.Rounds(goal) }

func (f *fakeTx) OpenRounds(goal, agent string) ([]records.Round, error) {
	var out []records.Round
	for _, r := range f.rounds {
		if r.Goal == goal && r.Status == records.RoundOpen && (agent == "" || r.Agent == agent) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f *fakeTx) PutRound(r records.Round) error {
	for i := range f.rounds {
		if f.rounds[i].ID == r.ID {
			f.rounds[i] = r
			return nil
		}
	}
	return fmt.Errorf("put of unknown round %s", r.ID)
}

func (f *fakeTx) Todo(id string) (records.Todo, error) {
	for _, t := range f.todos {
		if t.ID == id {
			return t, nil
		}
	}
	return records.Todo{}, kernel.ErrNotFound
}

func (f *fakeTx) Todos(goal string) ([]records.Todo, error) {
	var out []records.Todo
	for _, t := range f.todos {
		if t.Goal == goal {
			out = append(out, t)
		}
	}
	return out, nil
}

func (f *fakeTx) AddTodo(t records.Todo) (records.Todo, error) {
	t.ID, t.Status, t.CreatedAt = f.id("todo"), records.TodoOpen, f.now
	t.Seq = f.seq
	f.todos = append(f.todos, t)
	return t, nil
}

func (f *fakeTx) PutTodo(t records.Todo) error {
	for i := range f.todos {
		if f.todos[i].ID == t.ID {
			f.todos[i] = t
			return nil
		}
	}
	return fmt.Errorf("put of unknown todo %s", t.ID)
}

func (f *fakeTx) Gates(goal string) ([]records.Gate, error) {
	var out []records.Gate
	for _, g := range f.gates {
		if g.Goal == goal {
			out = append(out, g)
		}
	}
	return out, nil
}

func (f *fakeTx) AddGate(g records.Gate) (records.Gate, error) {
	g.ID, g.Status = f.id("gate"), records.GateOpen
	f.gates = append(f.gates, g)
	return g, nil
}

func (f *fakeTx) Agent(id string) (records.Agent, error) {
	if a, ok := f.agents[id]; ok {
		return a, nil
	}
	return records.Agent{}, kernel.ErrNotFound
}

func (f *fakeTx) PutAgent(a records.Agent) error { f.agents[a.ID] = a; return nil }

func (f *fakeTx) Ledger(goal string) ([]records.LedgerEntry, error) {
	return slices.Clone(f.ledger), nil
}

func (f *fakeTx) AppendLedger(e records.LedgerEntry) (records.LedgerEntry, error) {
	e.Seq = f.seq + 1
	f.seq++
	f.ledger = append(f.ledger, e)
	return e, nil
}

func (f *fakeTx) AddEvidence(e records.Evidence) (records.Evidence, error) {
	e.ID = f.id("ev")
	f.evidence = append(f.evidence, e)
	return e, nil
}

func (f *fakeTx) AddHandoff(h records.Handoff) (records.Handoff, error) {
	h.ID = f.id("handoff")
	f.handoffs = append(f.handoffs, h)
	return h, nil
}

func (f *fakeTx) Handoffs(goal string) ([]records.Handoff, error) {
	return slices.Clone(f.handoffs), nil
}

func (f *fakeTx) AppendEvent(e records.Event) error { f.events = append(f.events, e); return nil }

func (f *fakeTx) kinds() []string {
	var out []string
	for _, e := range f.events {
		out = append(out, e.Kind)
	}
	return out
}

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

var spec = &specs.Spec{
	Agents: map[string]specs.Agent{"a1": {Host: "shell", Role: "executor", Mode: "active"}},
	Goals:  map[string]specs.Goal{"g1": {Stall: specs.Stall{MaxNoProgress: 2}}},
}

// started is a fake holding one open round of a1 on g1 with its todo
// claimed for a TTL of an hour, and its todo id.
func started(t *testing.T) (*fakeTx, records.Round) {
	f := newFake(t0)
	td, _ := f.AddTodo(records.Todo{Goal: "g1", Title: "do it", Priority: 1})
	r, _, err := Open(f, spec, "g1", td, "a1", "dec-1", "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return f, r
}

func settle(progress error) Settle {
	return Settle{Spec: spec, Revisions: func() (string, string) { return "s1", "p1" },
		Progress: func(records.Round, *records.Todo, string, bool) error { return progress }}
}

func TestOpen(t *testing.T) {
	f, r := started(t)
	td, _ := f.Todo(r.Todo)
	if r.Goal != "g1" || r.Agent != "a1" || r.DecisionID != "dec-1" || td.Status != records.TodoClaimed || td.Lease.Round != r.ID || !td.Lease.ExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("round %+v todo %+v lease %+v", r, td, td.Lease)
	}
	if a := f.agents["a1"]; a.CurrentRound != r.ID || a.Host != "shell" || len(a.Goals) != 0 || a.Registered {
		t.Fatalf("agent %+v", a)
	}
	if k := f.kinds(); !slices.Equal(k, []string{"todo.claimed"}) {
		t.Fatalf("events %v", k)
	}
}

func TestFinish(t *testing.T) {
	deny := errs.New(errs.No, "gate_violation", "gate open")
	for _, tc := range []struct {
		name     string
		prep     func(f *fakeTx, r *records.Round)
		req      FinishRequest
		progress error
		code     string // the error's code, "" for none
		status   string // the todo's status afterwards
		charged  bool
		summary  string
	}{
		{name: "progress is charged and reopens the todo", req: FinishRequest{Outcome: "progress", Tokens: 10}, status: records.TodoOpen, charged: true},
		{name: "done", req: FinishRequest{Outcome: "progress", Done: true}, status: records.TodoDone, charged: true},
		{name: "no_change is free", req: FinishRequest{Outcome: "no_change"}, status: records.TodoOpen},
		{name: "an unknown outcome", req: FinishRequest{Outcome: "won"}, code: "bad_outcome", status: records.TodoClaimed},
		{name: "no outcome", req: FinishRequest{}, code: "bad_outcome", status: records.TodoClaimed},
		{name: "negative usage", req: FinishRequest{Outcome: "failed", Tokens: -1}, code: "bad_usage", status: records.TodoClaimed},
		{name: "another agent", req: FinishRequest{Outcome: "progress", Agent: "a2"}, code: "not_round_agent", status: records.TodoClaimed},
		{name: "the gate refuses progress", req: FinishRequest{Outcome: "progress"}, progress: deny, code: "gate_violation", status: records.TodoClaimed},
		{name: "a stale lease version", req: FinishRequest{Outcome: "progress", ExpectedVersion: 7}, code: "version_mismatch", status: records.TodoClaimed},
		{name: "an expired lease refuses a charge", prep: func(f *fakeTx, _ *records.Round) { f.now = t0.Add(2 * time.Hour) },
			req: FinishRequest{Outcome: "failed"}, code: "lease_lost", status: records.TodoClaimed},
		{name: "a lost lease closes an uncharged round", prep: func(f *fakeTx, r *records.Round) {
			td, _ := f.Todo(r.Todo)
			td.Lease.Holder = "a2"
			_ = f.PutTodo(td)
		}, req: FinishRequest{Outcome: "no_change", Summary: "nothing"}, status: records.TodoClaimed, summary: "nothing (lease lost: todo left as it is)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, r := started(t)
			if tc.prep != nil {
				tc.prep(f, &r)
			}
			rc, err := Finish(f, r.ID, tc.req, settle(tc.progress))
			if errs.CodeOf(err) != tc.code || (tc.code == "") != (err == nil) {
				t.Fatalf("error %v, want code %q", err, tc.code)
			}
			td, _ := f.Todo(r.Todo)
			if td.Status != tc.status {
				t.Fatalf("todo status %s, want %s", td.Status, tc.status)
			}
			if err != nil {
				return
			}
			if rc.Charged != tc.charged || rc.Round.Status != records.RoundFinished || rc.Ledger == nil || (rc.Ledger.Rounds == 1) != tc.charged || rc.Round.SpecRev != "s1" {
				t.Fatalf("receipt %+v ledger %+v", rc, rc.Ledger)
			}
			if tc.summary != "" && rc.Round.Summary != tc.summary {
				t.Fatalf("summary %q, want %q", rc.Round.Summary, tc.summary)
			}
			if tc.summary == "" && (!td.Lease.Released || rc.Todo == nil) {
				t.Fatalf("lease not released: %+v", td.Lease)
			}
			if f.agents["a1"].CurrentRound != "" {
				t.Fatalf("agent still in a round: %+v", f.agents["a1"])
			}
		})
	}
}

// TestFinish_HandoffSuccessorAndReplay: a finish with a handoff and a
// successor todo records both; finishing again returns the stored receipt
// and charges nothing.
func TestFinish_HandoffSuccessorAndReplay(t *testing.T) {
	f, r := started(t)
	rc, err := Finish(f, r.ID, FinishRequest{Outcome: "progress", Handoff: "half done", NextTodo: "finish it", NextFor: "a2",
		Evidence: []records.Evidence{{Kind: "test", Summary: "ok"}}}, settle(nil))
	if err != nil {
		t.Fatal(err)
	}
	if rc.Handoff == nil || rc.Handoff.Summary != "half done" || rc.NextTodo == nil || rc.NextTodo.Title != "finish it" ||
		rc.NextTodo.Priority != 1 || !slices.Equal(rc.NextTodo.Labels, []string{"for:a2"}) || len(rc.Round.Evidence) != 1 {
		t.Fatalf("%+v", rc)
	}
	// Another todo of the same title and agent, added later, is not the
	// successor.
	if _, err := f.AddTodo(records.Todo{Goal: "g1", Title: "finish it", CreatedBy: "a1"}); err != nil {
		t.Fatal(err)
	}
	again, err := Finish(f, r.ID, FinishRequest{Outcome: "progress"}, settle(nil))
	if err != nil || !again.Replayed || again.Handoff == nil || again.Handoff.ID != rc.Handoff.ID || again.Ledger == nil || again.Ledger.Seq != rc.Ledger.Seq ||
		again.NextTodo == nil || again.NextTodo.ID != rc.NextTodo.ID {
		t.Fatalf("replay %+v %v", again, err)
	}
	if len(f.ledger) != 1 {
		t.Fatalf("replay charged again: %+v", f.ledger)
	}
	if _, err := Finish(f, "round-99", FinishRequest{Outcome: "progress"}, settle(nil)); errs.CodeOf(err) != "unknown_round" {
		t.Fatalf("unknown round: %v", err)
	}
}

// TestFinish_MonitorResultHash: without an outcome a monitor's result
// hash decides it: the same hash is no_change, another progress.
func TestFinish_MonitorResultHash(t *testing.T) {
	for _, tc := range []struct{ last, hash, want string }{{"h1", "h1", "no_change"}, {"h1", "h2", "progress"}} {
		f := newFake(t0)
		td, _ := f.AddTodo(records.Todo{Goal: "g1", Title: "watch", Kind: records.KindMonitor, EverySeconds: 60, LastResultHash: tc.last})
		r, _, _ := Open(f, spec, "g1", td, "a1", "", "", time.Hour)
		rc, err := Finish(f, r.ID, FinishRequest{ResultHash: tc.hash}, settle(nil))
		if err != nil || rc.Round.Outcome != tc.want || rc.Todo.LastResultHash != tc.hash || !rc.Todo.NextDueAt.Equal(t0.Add(time.Minute)) {
			t.Fatalf("%s→%s: %+v %v", tc.last, tc.hash, rc.Round, err)
		}
	}
}

func TestSettleOpen(t *testing.T) {
	f, r := started(t)
	if err := SettleOpen(f, "g1", "a1"); errs.CodeOf(err) != "round_open" {
		t.Fatalf("live round: %v", err)
	}
	if err := SettleOpen(f, "g1", "a2"); err != nil {
		t.Fatalf("another agent: %v", err)
	}
	f.now = t0.Add(2 * time.Hour)
	if err := SettleOpen(f, "g1", "a1"); err != nil {
		t.Fatal(err)
	}
	got, _ := f.Round(r.ID)
	if got.Status != records.RoundAbandoned || !strings.HasPrefix(got.Summary, "abandoned") || f.kinds()[len(f.events)-1] != "round.abandoned" {
		t.Fatalf("%+v %v", got, f.kinds())
	}
}

// TestMaybeStall: the stall gate is raised once the rounds in a row
// without progress reach the limit, and only once.
func TestMaybeStall(t *testing.T) {
	f := newFake(t0)
	gs := spec.Goals["g1"]
	for i, outcome := range []string{"no_change", "failed", "no_change"} {
		f.rounds = append(f.rounds, records.Round{ID: fmt.Sprint("r", i), Goal: "g1", Status: records.RoundFinished, Outcome: outcome, FinishedAt: t0.Add(time.Duration(i) * time.Minute)})
		g, err := MaybeStall(f, "g1", &gs)
		if err != nil || (g != nil) != (i >= 1) {
			t.Fatalf("after %d rounds: %+v %v", i+1, g, err)
		}
	}
	if len(f.gates) != 1 || f.gates[0].Reason != "stall" || !strings.Contains(f.gates[0].Question, "The last 2 rounds of goal g1") {
		t.Fatalf("%+v", f.gates)
	}
	if g, err := MaybeStall(f, "g1", nil); g != nil || err != nil {
		t.Fatalf("no limit: %+v %v", g, err)
	}
}

// TestHeartbeat: a heartbeat records when an agent was seen and its
// round; it registers nothing (no goals, not Registered), and leaves a
// human's registration as it was.
func TestHeartbeat(t *testing.T) {
	f := newFake(t0)
	for _, tc := range []struct{ agent, host, role string }{{"a1", "shell", "executor"}, {"x9", "", "executor"}} {
		if err := Heartbeat(f, spec, tc.agent, "round-1"); err != nil {
			t.Fatal(err)
		}
		if err := Touch(f, spec, tc.agent); err != nil {
			t.Fatal(err)
		}
		a := f.agents[tc.agent]
		if a.Host != tc.host || a.Role != tc.role || a.CurrentRound != "round-1" || len(a.Goals) != 0 || a.Registered || !a.LastSeenAt.Equal(t0) {
			t.Fatalf("%+v", a)
		}
	}
	if err := Heartbeat(f, nil, "a1", ""); err != nil || f.agents["a1"].CurrentRound != "" || len(f.agents["a1"].Goals) != 0 {
		t.Fatalf("%+v %v", f.agents["a1"], err)
	}
	f.agents["r1"] = records.Agent{ID: "r1", Host: "codex", Registered: true, Goals: []string{"g1"}}
	if err := Heartbeat(f, spec, "r1", "round-2"); err != nil || !f.agents["r1"].Registered || !slices.Equal(f.agents["r1"].Goals, []string{"g1"}) {
		t.Fatalf("a registered agent's heartbeat: %+v %v", f.agents["r1"], err)
	}
}
