package engine

import (
	"slices"
	"time"

	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/specs"
)

// rfc renders t as RFC 3339 UTC with second precision, "" for the zero time.
func rfc(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// createdAtLayout is fixed-width (nanoseconds, never trimmed) so that
// policies can order todos by comparing created_at strings.
const createdAtLayout = "2006-01-02T15:04:05.000000000Z"

// specGateID is the stable id of a spec gate's instance.
func specGateID(goal, name string) string { return goal + "/" + name }

// goalSpec returns the spec of goal, nil when the spec is broken or has no such goal.
func (e *Engine) goalSpec(goal string) *specs.Goal {
	if e.spec == nil || e.spec.Spec == nil {
		return nil
	}
	g, ok := e.spec.Spec.Goals[goal]
	if !ok {
		return nil
	}
	return &g
}

// openGates returns the goal's open gates: the stored ones plus the spec
// gates that were never materialised (they start open).
func (e *Engine) openGates(tx source, goal string) ([]kernel.Gate, error) {
	stored, err := tx.Gates(goal)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	var open []kernel.Gate
	for _, g := range stored {
		have[g.ID] = true
		if g.Status != kernel.GateOpen {
			continue
		}
		g, ok := e.specView(g) // a spec gate follows the current spec
		if ok && (g.ExpiresAt.IsZero() || tx.Now().Before(g.ExpiresAt)) {
			open = append(open, g)
		}
	}
	if gs := e.goalSpec(goal); gs != nil {
		names := make([]string, 0, len(gs.Gates))
		for n := range gs.Gates {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			if id := specGateID(goal, n); !have[id] {
				open = append(open, specGate(goal, n, gs.Gates[n], time.Time{}))
			}
		}
	}
	return open, nil
}

// specGate builds the instance of spec gate goals.<goal>.gates.<name>.
func specGate(goal, name string, g specs.Gate, now time.Time) kernel.Gate {
	kind := "goal"
	switch {
	case len(g.Guards) > 0:
		kind = "action"
	case len(g.Todos) > 0:
		kind = "todo"
	case len(g.Agents) > 0:
		kind = "agent"
	}
	k := kernel.Gate{ID: specGateID(goal, name), Goal: goal, Name: name, Question: g.Question,
		Options: g.Options, Answerers: g.Answerers, Guards: g.Guards, ScopeKind: kind,
		ScopeAgents: g.Agents, ScopeTodos: g.Todos, Status: kernel.GateOpen, RaisedBy: "spec",
		RaisedAt: now, OnExpiry: g.OnExpiry}
	if g.ExpiresAfterSeconds > 0 && !now.IsZero() {
		k.ExpiresAt = now.Add(time.Duration(g.ExpiresAfterSeconds) * time.Second)
	}
	return k
}

// snapshot builds input.state for (goal, agent) at now.
func (e *Engine) snapshot(tx source, goal, agent string, now time.Time) (Snapshot, error) {
	return e.snapshotOf(tx, goal, agent, now, true)
}

// snapshotOf builds input.state; without usage it leaves out the quota and
// progress facts (they need the goal's whole ledger and rounds), which the
// claim query does not read.
func (e *Engine) snapshotOf(tx source, goal, agent string, now time.Time, usage bool) (Snapshot, error) {
	var s Snapshot
	s.Revision = tx.Revision()
	gs := e.goalSpec(goal)
	st, err := tx.Goal(goal)
	if err != nil {
		return s, err
	}
	s.GoalRevision = st.Rev
	s.Goal = GoalFacts{ID: goal, InSpec: gs != nil, Status: st.Status, Reason: st.Reason}

	s.Agent = e.agentFacts(tx, gs, agent)

	gates, err := e.openGates(tx, goal)
	if err != nil {
		return s, err
	}
	s.Gates = gateFacts(gates)

	todos, err := tx.Todos(goal)
	if err != nil {
		return s, err
	}
	done := map[string]bool{}
	for _, t := range todos {
		if t.Status == kernel.TodoDone {
			done[t.ID] = true
		}
	}
	s.Todos = []TodoFacts{}
	conflicts := scopeConflicts(todos, agent, now) // claimdecide.go
	for _, t := range todos {
		if t.Status == kernel.TodoDone || t.Status == kernel.TodoCancelled {
			continue
		}
		f := TodoFacts{ID: t.ID, Title: t.Title, Kind: t.Kind, Status: t.Status, Priority: t.Priority,
			CreatedAt: t.CreatedAt.UTC().Format(createdAtLayout), DepsOpen: []string{}, Labels: nonNil(t.Labels),
			ScopeConflict: conflicts[t.ID]}
		for _, d := range t.DependsOn {
			if !done[d] {
				f.DepsOpen = append(f.DepsOpen, d)
			}
		}
		if t.Lease != nil && !t.Lease.Released {
			f.Lease = &LeaseFacts{Holder: t.Lease.Holder, ExpiresAt: rfc(t.Lease.ExpiresAt),
				Live: t.Lease.LiveAt(now), Version: t.Lease.Version, Epoch: t.Lease.Epoch}
		}
		if t.Kind == kernel.KindMonitor {
			f.Due = !now.Before(t.NextDueAt)
			f.NextDueAt = rfc(t.NextDueAt)
		}
		s.Todos = append(s.Todos, f)
	}
	if !usage {
		return s, nil
	}

	rounds, err := tx.Rounds(goal)
	if err != nil {
		return s, err
	}
	ledger, err := tx.Ledger(goal)
	if err != nil {
		return s, err
	}
	s.Quota = quotaFacts(gs, ledger, rounds, now)
	// Rounds in flight (open, holding a live lease) count against the
	// rounds quota at start: N agents starting at once cannot overrun it.
	inFlight := map[string]bool{}
	for _, t := range todos {
		if t.Lease.LiveAt(now) && t.Lease.Round != "" {
			inFlight[t.Lease.Round] = true
		}
	}
	for _, r := range rounds {
		if r.Status == kernel.RoundOpen && inFlight[r.ID] {
			s.Quota.RoundsInFlight++
		}
	}
	s.Progress = e.progressFacts(tx, goal, agent, rounds, todos, st, now)
	return s, nil
}

// gateFacts is input.state.gates for the open gates gates.
func gateFacts(gates []kernel.Gate) []GateFacts {
	out := []GateFacts{}
	for _, g := range gates {
		out = append(out, GateFacts{ID: g.ID, Name: g.Name, Question: g.Question, Options: nonNil(g.Options),
			Scope:  GateScope{Kind: g.ScopeKind, Agents: nonNil(g.ScopeAgents), Todos: nonNil(g.ScopeTodos)},
			Guards: nonNil(g.Guards), RaisedBy: g.RaisedBy, RaisedAt: rfc(g.RaisedAt), ExpiresAt: rfc(g.ExpiresAt), Reason: g.Reason})
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (e *Engine) agentFacts(tx source, gs *specs.Goal, agent string) AgentFacts {
	f := AgentFacts{ID: agent, Role: "executor", Mode: "active"}
	if e.spec != nil && e.spec.Spec != nil {
		if a, ok := e.spec.Spec.Agents[agent]; ok {
			f.Known, f.Role, f.Mode = true, a.Role, a.Mode
		}
	}
	if !f.Known {
		if a, err := tx.Agent(agent); err == nil {
			f.Known, f.Role, f.Mode = true, a.Role, a.Mode
		}
	}
	f.OnGoal = f.Known && (gs == nil || len(gs.Agents) == 0 || slices.Contains(gs.Agents, agent))
	return f
}

// quotaFacts sums the goal's ledger over the rolling window ending at now.
// It reads the whole ledger: no "last N records" window changes a verdict.
// An entry dated after now (written while the clock was ahead, or by a
// clock since moved back) counts as inside the window, and a round started
// after now is the last round for min_interval: moving the clock never
// gives budget back (README "One clock").
func quotaFacts(gs *specs.Goal, ledger []kernel.LedgerEntry, rounds []kernel.Round, now time.Time) QuotaFacts {
	var q QuotaFacts
	q.MinIntervalElapsed = true
	if gs == nil {
		return q
	}
	window := time.Duration(gs.Quota.WindowSeconds) * time.Second
	start := now.Add(-window)
	q.WindowStart = rfc(start)
	q.ComputeLimitSeconds = gs.Quota.Compute * window.Seconds()
	var oldest time.Time
	for _, l := range ledger {
		if !l.At.After(start) {
			continue
		}
		q.Rounds += l.Rounds
		q.Tokens += l.Tokens
		q.CostUSD += l.CostUSD
		q.ComputeSeconds += l.ComputeSeconds
		if (l.Rounds > 0 || l.Tokens > 0 || l.CostUSD > 0 || l.ComputeSeconds > 0) && oldest.IsZero() {
			oldest = l.At
		}
	}
	if !oldest.IsZero() {
		q.ResetsAt = rfc(oldest.Add(window))
	}
	var last time.Time
	for _, r := range rounds {
		if r.StartedAt.After(last) {
			last = r.StartedAt
		}
	}
	q.LastRoundAt = rfc(last)
	if gs.Quota.MinIntervalSeconds > 0 && !last.IsZero() {
		next := last.Add(time.Duration(gs.Quota.MinIntervalSeconds) * time.Second)
		q.NextRoundAt = rfc(next)
		q.MinIntervalElapsed = !now.Before(next)
	}
	return q
}

// progressFacts derives the stall count and the no-change facts.
func (e *Engine) progressFacts(tx source, goal, agent string, rounds []kernel.Round,
	todos []kernel.Todo, st kernel.GoalState, now time.Time) ProgressFacts {
	var p ProgressFacts
	// The stall count restarts after the last answered stall gate.
	var reset time.Time
	if all, err := tx.Gates(goal); err == nil {
		for _, g := range all {
			if g.Reason == "stall" && g.Answer != nil && g.Answer.At.After(reset) {
				reset = g.Answer.At
			}
		}
	}
	finished := make([]kernel.Round, 0, len(rounds))
	for _, r := range rounds {
		if r.Status == kernel.RoundFinished {
			finished = append(finished, r)
		}
	}
	slices.SortStableFunc(finished, func(a, b kernel.Round) int { return a.FinishedAt.Compare(b.FinishedAt) })
	p.ConsecutiveNoProgress = consecutiveNoProgress(finished, reset)
	for i := len(finished) - 1; i >= 0; i-- {
		r := finished[i]
		if r.Agent != agent {
			continue
		}
		p.LastOutcome, p.LastTodo = r.Outcome, r.Todo
		spec, policy := e.revisions()
		p.ChangedSinceLast = st.Rev > r.GoalRevAfter || r.SpecRev != spec || r.PolicyRev != policy
		for _, t := range todos {
			if t.Kind == kernel.KindMonitor && t.Status != kernel.TodoDone && t.NextDueAt.After(r.FinishedAt) && !now.Before(t.NextDueAt) {
				p.ChangedSinceLast = true
			}
		}
		break
	}
	return p
}

// consecutiveNoProgress counts the latest finished rounds (ordered by
// finish) that ended no_change or failed, stopping at a progress round or at
// the reset instant; other outcomes neither count nor break the run.
func consecutiveNoProgress(finished []kernel.Round, reset time.Time) int64 {
	var n int64
	for i := len(finished) - 1; i >= 0; i-- {
		r := finished[i]
		if !r.FinishedAt.After(reset) {
			break
		}
		switch r.Outcome {
		case kernel.OutcomeProgress:
			return n
		case kernel.OutcomeNoChange, kernel.OutcomeFailed:
			n++
		}
	}
	return n
}
