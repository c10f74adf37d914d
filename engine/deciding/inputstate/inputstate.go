// Package inputstate builds input.state, the part of kernel state a decision
// depends on, from kernel records and the adopted spec at one
// instant: the goal's status, the asking agent, the open gates (stored and
// spec gates never materialised), the todos with their leases and scope
// conflicts, the quota used in the rolling window and the progress of
// recent rounds. It reads through Source (a kernel read transaction or the
// read model) and never the store's owner, the top engine package.
package inputstate

import (
	"errors"
	"slices"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/glob"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// Source is what a decision reads from the kernel: a read transaction, or
// the cached read model (readmodel.Model). Both give the same records in
// the same order.
type Source interface {
	Now() time.Time
	StateRevision() uint64
	Goal(id string) (records.GoalState, error)
	Todos(goal string) ([]records.Todo, error)
	Gates(goal string) ([]records.Gate, error)
	Rounds(goal string) ([]records.Round, error)
	Ledger(goal string) ([]records.LedgerEntry, error)
	Agent(id string) (records.Agent, error)
}

// CreatedAtLayout is fixed-width (nanoseconds, never trimmed) so that
// policies can order todos by comparing created_at strings.
const CreatedAtLayout = "2006-01-02T15:04:05.000000000Z"

// NonNil is s, or an empty slice for nil (input lists are never null).
func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// SpecGateID is the stable id of a spec gate's instance.
func SpecGateID(goal, name string) string { return goal + "/" + name }

// Builder builds input.state under one adopted spec.
type Builder struct {
	// Spec is the adopted spec; nil when it is broken.
	Spec *specs.Spec
	// Revisions returns the content hashes of the spec ("" when broken)
	// and the policy bundle (progress.changed_since_last compares them
	// with a round's); called at most once per snapshot.
	Revisions func() (spec, policy string)
}

// GoalSpec returns the spec of goal, nil when the spec is broken or has
// no such goal.
func (b Builder) GoalSpec(goal string) *specs.Goal {
	if b.Spec == nil {
		return nil
	}
	g, ok := b.Spec.Goals[goal]
	if !ok {
		return nil
	}
	return &g
}

// OpenGates returns the goal's open gates: the stored ones plus the spec
// gates that were never materialised (they start open). Errors: src's.
func (b Builder) OpenGates(src Source, goal string) ([]records.Gate, error) {
	stored, err := src.Gates(goal)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	var open []records.Gate
	for _, g := range stored {
		have[g.ID] = true
		if g.Status != records.GateOpen {
			continue
		}
		g, ok := b.SpecView(g) // a spec gate follows the current spec
		if ok && (g.ExpiresAt.IsZero() || src.Now().Before(g.ExpiresAt)) {
			open = append(open, g)
		}
	}
	if gs := b.GoalSpec(goal); gs != nil {
		names := make([]string, 0, len(gs.Gates))
		for n := range gs.Gates {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			if id := SpecGateID(goal, n); !have[id] {
				open = append(open, SpecGate(goal, n, gs.Gates[n], time.Time{}))
			}
		}
	}
	return open, nil
}

// SpecView returns an open spec gate instance as the current spec defines
// it (question, options, answerers, guards, scope, expiry rule), keeping its
// id, status and raise time; false when the spec no longer declares it.
// A gate raised by a command (no name) is returned as is, true.
func (b Builder) SpecView(g records.Gate) (records.Gate, bool) {
	gs := b.GoalSpec(g.Goal)
	if g.Name == "" || gs == nil {
		return g, g.Name == ""
	}
	sg, ok := gs.Gates[g.Name]
	if !ok {
		return g, false
	}
	cur := SpecGate(g.Goal, g.Name, sg, g.RaisedAt)
	cur.Seq, cur.Status, cur.Answer, cur.RaisedBy = g.Seq, g.Status, g.Answer, g.RaisedBy
	if sg.ExpiresAfterSeconds == 0 {
		cur.ExpiresAt = g.ExpiresAt
	}
	return cur, true
}

// SpecGate builds the instance of spec gate goals.<goal>.gates.<name>
// raised at now (the zero time: not raised yet, no expiry).
func SpecGate(goal, name string, g specs.Gate, now time.Time) records.Gate {
	kind := "goal"
	switch {
	case len(g.Guards) > 0:
		kind = "action"
	case len(g.Todos) > 0:
		kind = "todo"
	case len(g.Agents) > 0:
		kind = "agent"
	}
	k := records.Gate{ID: SpecGateID(goal, name), Goal: goal, Name: name, Question: g.Question,
		Options: g.Options, Answerers: g.Answerers, Guards: g.Guards, ScopeKind: kind,
		ScopeAgents: g.Agents, ScopeTodos: g.Todos, Status: records.GateOpen, RaisedBy: "spec",
		RaisedAt: now, OnExpiry: g.OnExpiry}
	if g.ExpiresAfterSeconds > 0 && !now.IsZero() {
		k.ExpiresAt = now.Add(time.Duration(g.ExpiresAfterSeconds) * time.Second)
	}
	return k
}

// Need says which costly parts of input.state a snapshot carries.
type Need struct {
	// Usage: the quota and progress facts (they need the goal's whole
	// ledger and rounds), which the claim query does not read.
	Usage bool
	// Todos: input.state.todos (every todo not done or cancelled, with
	// its lease, open dependencies and scope conflict), which the built-in
	// permission and claim policies do not read. Without it the list is
	// empty.
	Todos bool
	// Window, when above 0 and the source keeps todo windows (Windowed),
	// lets input.state.todos be a window covering at least Window todos of
	// the claim order instead of every todo (OfWindow says which it is).
	// Without Todos, such a source is read for its leased todos and
	// monitors only, whatever Window says.
	Window int
}

// Windowed is a Source that keeps todo windows (readmodel.Model): a
// prefix of the claim order (data.loopx.lib.claim_order) computed once
// per state revision, from which should_run selects the todo it would
// select from all of them whenever it selects one from it at all.
type Windowed interface {
	// TodoWindow returns goal's window covering at least least todos of
	// the claim order (all of it when shorter); false when the source
	// keeps no window that long (read Todos then).
	TodoWindow(goal string, least int) (readmodel.Window, bool)
}

// Of builds input.state for (goal, agent) at now, with the parts need
// asks for (the others empty or zero). Errors: src's.
func (b Builder) Of(src Source, goal, agent string, now time.Time, need Need) (input.Snapshot, error) {
	s, _, err := b.OfWindow(src, goal, agent, now, need)
	return s, err
}

// OfWindow is Of, and reports whether input.state.todos is a partial
// window of the goal's todos (need.Window). Errors: src's.
func (b Builder) OfWindow(src Source, goal, agent string, now time.Time, need Need) (s input.Snapshot, partial bool, err error) {
	s.Revision = src.StateRevision()
	gs := b.GoalSpec(goal)
	st, err := src.Goal(goal)
	if err != nil {
		return s, false, err
	}
	s.GoalRevision = st.Rev
	s.Goal = input.GoalFacts{ID: goal, InSpec: gs != nil, Status: st.Status, Reason: st.Reason}

	s.Agent = b.AgentFacts(src, gs, agent)

	gates, err := b.OpenGates(src, goal)
	if err != nil {
		return s, false, err
	}
	s.Gates = GateFacts(gates)

	s.Todos = []input.TodoFacts{}
	if !need.Todos && !need.Usage {
		return s, false, nil
	}
	// leased holds every todo with a lease record (rounds in flight) and
	// monitors every monitor (progress): the whole list, or a window's.
	var todos, leased, monitors []records.Todo
	if w, ok := window(src, goal, need); ok {
		leased, monitors = w.Leased, w.Monitors
		if need.Todos {
			s.Todos, partial = WindowFacts(w, agent, now), w.Partial
		}
	} else {
		if todos, err = src.Todos(goal); err != nil {
			return s, false, err
		}
		leased, monitors = todos, todos
		if need.Todos {
			s.Todos = TodoFacts(todos, agent, now)
		}
	}
	if !need.Usage {
		return s, partial, nil
	}

	rounds, err := HotRoundsOf(src, goal)
	if err != nil {
		return s, false, err
	}
	ledger, err := WindowLedger(src, goal, gs, now)
	if err != nil {
		return s, false, err
	}
	s.Quota = QuotaFacts(gs, ledger, rounds, now)
	// Rounds in flight (open, holding a live lease) count against the
	// rounds quota at start: N agents starting at once cannot overrun it.
	inFlight := map[string]bool{}
	for _, t := range leased {
		if t.Lease.LiveAt(now) && t.Lease.Round != "" {
			inFlight[t.Lease.Round] = true
		}
	}
	for _, r := range rounds {
		if r.Status == records.RoundOpen && inFlight[r.ID] {
			s.Quota.RoundsInFlight++
		}
	}
	s.Progress = b.progressFacts(src, goal, agent, rounds, monitors, st, now)
	return s, partial, nil
}

// LedgerSincer is a Source that reads the ledger entries of one quota
// window (kernel.Tx.LedgerSince; the read model, which fails when it does
// not keep them all: the caller then reads the store).
type LedgerSincer interface {
	LedgerSince(goal string, start time.Time) ([]records.LedgerEntry, error)
}

// WindowLedger is goal's ledger entries in src that the quota window of
// gs at now sums (QuotaFacts reads no other): the window's alone when src
// reads windows, else every entry src has; none when gs is nil (no
// quota). Errors: src's.
func WindowLedger(src Source, goal string, gs *specs.Goal, now time.Time) ([]records.LedgerEntry, error) {
	if gs == nil {
		return nil, nil
	}
	if l, ok := src.(LedgerSincer); ok {
		return l.LedgerSince(goal, now.Add(-time.Duration(gs.Quota.WindowSeconds)*time.Second))
	}
	return src.Ledger(goal)
}

// HotRounder is a Source that reads only the rounds a decision needs
// (kernel.Tx.HotRounds: the facts computed from them are those of every
// round).
type HotRounder interface {
	HotRounds(goal string) ([]records.Round, error)
}

// HotRoundsOf are the rounds of goal a decision reads from src: its hot
// rounds when src keeps an index of them, else every round it has (the
// read model keeps only those).
func HotRoundsOf(src Source, goal string) ([]records.Round, error) {
	if h, ok := src.(HotRounder); ok {
		return h.HotRounds(goal)
	}
	return src.Rounds(goal)
}

// window is src's todo window for goal when need asks for one and src
// keeps one.
// A snapshot without todos (need.Todos false) reads no todo of a window:
// only its leased todos and monitors.
func window(src Source, goal string, need Need) (readmodel.Window, bool) {
	ws, ok := src.(Windowed)
	if !ok || (need.Todos && need.Window <= 0) {
		return readmodel.Window{}, false
	}
	if !need.Todos {
		return ws.TodoWindow(goal, 0)
	}
	return ws.TodoWindow(goal, need.Window)
}

// WindowFacts is input.state.todos for the window w, for agent at now: the
// facts TodoFacts gives those todos when it converts the goal's whole list.
func WindowFacts(w readmodel.Window, agent string, now time.Time) []input.TodoFacts {
	conflicts := scopeConflicts(w.Leased, w.Todos, agent, now)
	out := make([]input.TodoFacts, 0, len(w.Todos))
	for i, t := range w.Todos {
		out = append(out, todoFact(t, w.DepsOpen[i], conflicts[t.ID], now))
	}
	return out
}

// TodoFacts converts todos (all of a goal's) to input.state.todos: those
// not done or cancelled, in their order, for agent at now.
func TodoFacts(todos []records.Todo, agent string, now time.Time) []input.TodoFacts {
	done := map[string]bool{}
	for _, t := range todos {
		if t.Status == records.TodoDone {
			done[t.ID] = true
		}
	}
	out := []input.TodoFacts{}
	conflicts := ScopeConflicts(todos, agent, now)
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
		out = append(out, todoFact(t, deps, conflicts[t.ID], now))
	}
	return out
}

// todoFact is t's entry of input.state.todos at now, with its open
// dependencies and scope conflict.
func todoFact(t records.Todo, depsOpen []string, conflict string, now time.Time) input.TodoFacts {
	f := input.TodoFacts{ID: t.ID, Title: t.Title, Kind: t.Kind, Status: t.Status, Priority: t.Priority,
		CreatedAt: t.CreatedAt.UTC().Format(CreatedAtLayout), DepsOpen: NonNil(depsOpen), Labels: NonNil(t.Labels),
		ScopeConflict: conflict}
	if t.Lease != nil && !t.Lease.Released {
		f.Lease = &input.LeaseFacts{Holder: t.Lease.Holder, ExpiresAt: records.RFC3339(t.Lease.ExpiresAt),
			Live: t.Lease.LiveAt(now), Version: t.Lease.Version, Epoch: t.Lease.Epoch}
	}
	if t.Kind == records.KindMonitor {
		f.Due = !now.Before(t.NextDueAt)
		f.NextDueAt = records.RFC3339(t.NextDueAt)
	}
	return f
}

// Gates is a snapshot with only the goal, the agent and the open gates
// (what a claim query on finish, done or evidence reads). Errors: src's.
func (b Builder) Gates(src Source, goal, agent string) (input.Snapshot, error) {
	s := input.Snapshot{Revision: src.StateRevision(), Gates: []input.GateFacts{}, Todos: []input.TodoFacts{}}
	st, err := src.Goal(goal)
	if err != nil {
		return s, err
	}
	gs := b.GoalSpec(goal)
	s.GoalRevision = st.Rev
	s.Goal = input.GoalFacts{ID: goal, InSpec: gs != nil, Status: st.Status, Reason: st.Reason}
	s.Agent = b.AgentFacts(src, gs, agent)
	gates, err := b.OpenGates(src, goal)
	if err != nil {
		return s, err
	}
	s.Gates = GateFacts(gates)
	return s, nil
}

// GateFacts is input.state.gates for the open gates gates.
func GateFacts(gates []records.Gate) []input.GateFacts {
	out := []input.GateFacts{}
	for _, g := range gates {
		out = append(out, input.GateFacts{ID: g.ID, Name: g.Name, Question: g.Question, Options: NonNil(g.Options),
			Scope:  input.GateScope{Kind: g.ScopeKind, Agents: NonNil(g.ScopeAgents), Todos: NonNil(g.ScopeTodos)},
			Guards: NonNil(g.Guards), RaisedBy: g.RaisedBy, RaisedAt: records.RFC3339(g.RaisedAt), ExpiresAt: records.RFC3339(g.ExpiresAt), Reason: g.Reason})
	}
	return out
}

// AgentFacts is input.state.agent for agent: its role and mode from the
// spec, else from a human's registration (src: a record loopx wrote when
// the agent acted is none), else an unknown executor, and the goals its
// registration names (whether it may work on a goal is
// data.loopx.lib.agent_on_goal's).
func (b Builder) AgentFacts(src Source, gs *specs.Goal, agent string) input.AgentFacts {
	f := input.AgentFacts{ID: agent, Role: "executor", Mode: "active", Goals: []string{}}
	if b.Spec != nil {
		if a, ok := b.Spec.Agents[agent]; ok {
			f.Known, f.Role, f.Mode = true, a.Role, a.Mode
		}
	}
	if a, err := src.Agent(agent); err == nil && a.Registered {
		if !f.Known {
			f.Known, f.Role, f.Mode = true, a.Role, a.Mode
		}
		if len(a.Goals) > 0 {
			f.Goals = slices.Clone(a.Goals)
		}
	}
	return f
}

// QuotaFacts sums the goal's ledger over the rolling window ending at now.
// It reads the whole ledger: no "last N records" window changes a verdict.
// An entry dated after now (written while the clock was ahead, or by a
// clock since moved back) counts as inside the window, and a round started
// after now is the last round for min_interval: moving the clock never
// gives budget back (docs/trust.md "One clock").
func QuotaFacts(gs *specs.Goal, ledger []records.LedgerEntry, rounds []records.Round, now time.Time) input.QuotaFacts {
	var q input.QuotaFacts
	q.MinIntervalElapsed = true
	if gs == nil {
		return q
	}
	window := time.Duration(gs.Quota.WindowSeconds) * time.Second
	start := now.Add(-window)
	q.WindowStart = records.RFC3339(start)
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
		q.ResetsAt = records.RFC3339(oldest.Add(window))
	}
	var last time.Time
	for _, r := range rounds {
		if r.StartedAt.After(last) {
			last = r.StartedAt
		}
	}
	q.LastRoundAt = records.RFC3339(last)
	if gs.Quota.MinIntervalSeconds > 0 && !last.IsZero() {
		next := last.Add(time.Duration(gs.Quota.MinIntervalSeconds) * time.Second)
		q.NextRoundAt = records.RFC3339(next)
		q.MinIntervalElapsed = !now.Before(next)
	}
	return q
}

// progressFacts derives the stall count and the no-change facts.
func (b Builder) progressFacts(src Source, goal, agent string, rounds []records.Round,
	todos []records.Todo, st records.GoalState, now time.Time) input.ProgressFacts {
	var p input.ProgressFacts
	// The stall count restarts after the last answered stall gate.
	var reset time.Time
	if all, err := src.Gates(goal); err == nil {
		for _, g := range all {
			if g.Reason == "stall" && g.Answer != nil && g.Answer.At.After(reset) {
				reset = g.Answer.At
			}
		}
	}
	finished := make([]records.Round, 0, len(rounds))
	for _, r := range rounds {
		if r.Status == records.RoundFinished {
			finished = append(finished, r)
		}
	}
	slices.SortStableFunc(finished, func(a, b records.Round) int { return a.FinishedAt.Compare(b.FinishedAt) })
	p.ConsecutiveNoProgress = ConsecutiveNoProgress(finished, reset)
	for i := len(finished) - 1; i >= 0; i-- {
		r := finished[i]
		if r.Agent != agent {
			continue
		}
		p.LastOutcome, p.LastTodo = r.Outcome, r.Todo
		spec, policy := b.Revisions()
		p.ChangedSinceLast = st.Rev > r.GoalRevAfter || r.SpecRev != spec || r.PolicyRev != policy
		for _, t := range todos {
			if t.Kind == records.KindMonitor && t.Status != records.TodoDone && t.NextDueAt.After(r.FinishedAt) && !now.Before(t.NextDueAt) {
				p.ChangedSinceLast = true
			}
		}
		break
	}
	return p
}

// ConsecutiveNoProgress counts the latest finished rounds (ordered by
// finish) that ended no_change or failed, stopping at a progress round or at
// the reset instant; other outcomes neither count nor break the run.
func ConsecutiveNoProgress(finished []records.Round, reset time.Time) int64 {
	var n int64
	for i := len(finished) - 1; i >= 0; i-- {
		r := finished[i]
		if !r.FinishedAt.After(reset) {
			break
		}
		switch r.Outcome {
		case records.OutcomeProgress:
			return n
		case records.OutcomeNoChange, records.OutcomeFailed:
			n++
		}
	}
	return n
}

// ScopeConflicts maps the id of each todo of todos whose scope overlaps
// the scope of another todo held by a live lease of an agent other than
// agent to that other todo's id (input.state.todos[].scope_conflict). It
// is nil when no todo has a scope.
func ScopeConflicts(todos []records.Todo, agent string, now time.Time) map[string]string {
	return scopeConflicts(todos, todos, agent, now)
}

// scopeConflicts is ScopeConflicts for the todos of, against the todos of
// leased held by a live lease of another agent (leased must hold every
// such todo of the goal).
func scopeConflicts(leased, of []records.Todo, agent string, now time.Time) map[string]string {
	var held []records.Todo
	for _, t := range leased {
		if len(t.Scope) > 0 && t.Lease.LiveAt(now) && t.Lease.Holder != agent {
			held = append(held, t)
		}
	}
	if len(held) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, t := range of {
		if len(t.Scope) == 0 || t.Status == records.TodoDone || t.Status == records.TodoCancelled {
			continue
		}
		for _, h := range held {
			if h.ID == t.ID {
				continue
			}
			if _, _, ok := glob.Overlap(t.Scope, h.Scope); ok {
				out[t.ID] = h.ID
				break
			}
		}
	}
	return out
}

// ClaimSource is what the facts of a claimed todo read: a kernel
// transaction.
type ClaimSource interface {
	Now() time.Time
	Todo(id string) (records.Todo, error)
	Todos(goal string) ([]records.Todo, error)
}

// ClaimTodo gathers the facts of t for a claim query (input.claim.todo):
// its lease, its open dependencies (a missing dependency counts as open)
// and the first scope it conflicts with across goals (the spec's) and t's
// own goal. Errors: src's.
func ClaimTodo(tx ClaimSource, goals []string, t records.Todo, agent string) (*input.ClaimTodo, error) {
	now := tx.Now()
	f := &input.ClaimTodo{Goal: t.Goal, Note: t.Note, TodoFacts: input.TodoFacts{ID: t.ID, Title: t.Title, Kind: t.Kind, Status: t.Status,
		Priority: t.Priority, CreatedAt: t.CreatedAt.UTC().Format(CreatedAtLayout), DepsOpen: []string{}, Labels: NonNil(t.Labels)}}
	for _, d := range t.DependsOn {
		dt, err := tx.Todo(d)
		if err != nil && !errors.Is(err, kernel.ErrNotFound) {
			return nil, err
		}
		if err != nil || dt.Status != records.TodoDone {
			f.DepsOpen = append(f.DepsOpen, d)
		}
	}
	if l := t.Lease; l != nil && !l.Released {
		f.Lease = &input.LeaseFacts{Holder: l.Holder, ExpiresAt: records.RFC3339(l.ExpiresAt), Live: l.LiveAt(now), Version: l.Version, Epoch: l.Epoch}
	}
	if t.Kind == records.KindMonitor {
		f.Due = !now.Before(t.NextDueAt)
		f.NextDueAt = records.RFC3339(t.NextDueAt)
		f.EverySeconds = t.EverySeconds
	}
	c, err := conflict(tx, goals, t, agent)
	if err != nil {
		return nil, err
	}
	if c != nil {
		f.Conflict, f.ScopeConflict = c, c.Todo
	}
	return f, nil
}

// conflict finds the first todo (of any of goals, and t's own) held by a
// live lease of another agent whose scope overlaps t's; nil when none.
func conflict(tx ClaimSource, goals []string, t records.Todo, agent string) (*input.ConflictFacts, error) {
	if len(t.Scope) == 0 {
		return nil, nil
	}
	if !slices.Contains(goals, t.Goal) {
		goals = append(slices.Clip(goals), t.Goal)
	}
	now := tx.Now()
	ix, indexed := tx.(TodoIndexer)
	for _, g := range goals {
		// Only a todo with a lease can conflict: the store's index lists
		// them (every todo is read without one).
		var todos []records.Todo
		ok := false
		var err error
		if indexed {
			todos, ok, err = ix.LeasedTodos(g)
		}
		if err == nil && !ok {
			todos, err = tx.Todos(g)
		}
		if err != nil {
			return nil, err
		}
		for _, o := range todos {
			if o.ID == t.ID || len(o.Scope) == 0 || !o.Lease.LiveAt(now) || o.Lease.Holder == agent {
				continue
			}
			if mine, theirs, ok := glob.Overlap(t.Scope, o.Scope); ok {
				return &input.ConflictFacts{Todo: o.ID, Holder: o.Lease.Holder, ExpiresAt: records.RFC3339(o.Lease.ExpiresAt), Scope: mine, OtherScope: theirs}, nil
			}
		}
	}
	return nil, nil
}
