package engine

import (
	"context"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/kernel/records"
)

// TestGatePoll_OneEventACountAndNoStateChange: an agent host polling
// round start under a gate that blocks it is refused every time, audited
// once (a gate.waited event with first_poll) and counted in its poll record;
// a second agent blocked by the same gate gets its own record and event.
// The polls are no change to the goal: the agent whose last round ended
// no_change on the only todo is still told nothing changed
// (progress.changed_since_last false, no_state_change), as before them.
func TestGatePoll_OneEventACountAndNoStateChange(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, `agents: {
	a1: {host: "shell", role: "executor"}
	a2: {host: "shell", role: "executor"}
	a3: {host: "shell", role: "executor"}
}
goals: g1: {
	objective: "Test the polls"
	agents: ["a1", "a2", "a3"]
	quota: {window: "24h", rounds: 3, min_interval: "0s"}
}
`)
	ctx := context.Background()
	addTodos(t, e, "only")
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Is the schema migration safe to run now?", By: "human", BlocksAgent: "a2"})
	if err != nil {
		t.Fatal(err)
	}
	g3, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Is the second migration safe to run now?", By: "human", BlocksAgent: "a3"})
	if err != nil {
		t.Fatal(err)
	}
	round(t, e, "a1", records.OutcomeNoChange)
	noChange := func(when string) {
		t.Helper()
		d := decide(t, e, "a1")
		if d.Verdict != "skip" || !d.HasReason("no_state_change") {
			t.Fatalf("%s: a1's decision %s %+v, want skip no_state_change", when, d.Verdict, d.Reasons)
		}
	}
	noChange("before the polls")
	for _, p := range []struct {
		agent string
		n     int
	}{{"a2", 4}, {"a3", 2}} {
		for range p.n {
			c.Advance(time.Minute)
			st, err := e.StartRound(ctx, "g1", p.agent)
			if err != nil || st.Round != nil || st.Decision.Verdict != "wait_human" {
				t.Fatalf("poll by %s: %+v %v", p.agent, st, err)
			}
		}
	}
	noChange("after the polls")
	evs, err := e.Events(reportdata.EventFilter{Kind: "gate.waited"})
	if err != nil || len(evs) != 2 {
		t.Fatalf("gate.waited events = %+v %v, want one per agent", evs, err)
	}
	for i, want := range []struct{ agent, gate string }{{"a2", g.ID}, {"a3", g3.ID}} {
		if ev := evs[i]; ev.Actor != want.agent || ev.Subject != want.gate || ev.Data["first_poll"] != true {
			t.Errorf("event %d: %+v", i, ev)
		}
	}
	polls, err := e.GatePolls("g1")
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, p := range polls {
		counts[p.Gate+" "+p.Agent] = p.Count
		if !p.LastAt.After(p.FirstAt) {
			t.Errorf("poll record %+v: the latest poll is not after the first", p)
		}
	}
	if len(counts) != 2 || counts[g.ID+" a2"] != 4 || counts[g3.ID+" a3"] != 2 {
		t.Fatalf("poll counts %v", counts)
	}
	// A real change still counts: a new todo lets a1 run again.
	addTodos(t, e, "next")
	if d := decide(t, e, "a1"); d.Verdict != "run" {
		t.Fatalf("after a new todo: %s %+v", d.Verdict, d.Reasons)
	}
}
