// Package reportdata gathers what the bounded-turn prompt, the review packet
// and the status summary show (`loopx prompt`, `loopx review`,
// `loopx status`) from kernel records and the adopted spec at one
// instant: open gates, the latest handoff, fresh or stale evidence, quota
// spent, rounds and events since an instant. Package render prints what it
// gathers. It reads through interfaces of its own (a kernel read
// transaction or the read model) and never the store's owner, the top
// engine package.
package reportdata

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/mutating/retention"
	"github.com/loopx-dev/loopx/kernel/records"

	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/specs"
)

// DefaultStaleAfter is how long evidence stays fresh when the spec does
// not say (goals.<g>.evidence.stale_after).
const DefaultStaleAfter = 72 * time.Hour

// DefaultReviewWindow is how far back a review looks when no review was
// made before and --since is not given.
const DefaultReviewWindow = 24 * time.Hour

// ReviewEventKind marks a generated review in the audit log; the next
// review starts from it.
const ReviewEventKind = retention.ReviewEventKind

// StatusSource is what a status reads: a kernel read transaction or the
// read model.
type StatusSource interface {
	inputstate.Source
	Handoffs(goal string) ([]records.Handoff, error)
	EvidenceCount(goal string) (int, error)
}

// PromptSource is what a prompt reads: a kernel read transaction.
type PromptSource interface {
	inputstate.Source
	Handoffs(goal string) ([]records.Handoff, error)
	EvidenceList(goal string, limit int) ([]records.Evidence, error)
}

// ReviewSource is what a review packet reads: a kernel read transaction.
type ReviewSource interface {
	PromptSource
	Events(fn func(records.Event) bool) error
	GatePolls(goal string) ([]records.GatePoll, error)
}

// StaleAfter is the goal's evidence.stale_after (DefaultStaleAfter when
// gs is nil or does not say).
func StaleAfter(gs *specs.Goal) time.Duration {
	if gs != nil && gs.Evidence.StaleAfterSeconds > 0 {
		return time.Duration(gs.Evidence.StaleAfterSeconds) * time.Second
	}
	return DefaultStaleAfter
}

// Stale reports whether evidence created at created is stale at now:
// older than after, or dated after now (the clock moved back, or the
// record claims a time that has not come yet).
func Stale(created, now time.Time, after time.Duration) bool {
	return created.After(now) || now.Sub(created) >= after
}

// FreshEvidence is the evidence of evs that is not stale at now, in order.
func FreshEvidence(evs []records.Evidence, after time.Duration, now time.Time) []records.Evidence {
	var out []records.Evidence
	for _, ev := range evs {
		if !Stale(ev.CreatedAt, now, after) {
			out = append(out, ev)
		}
	}
	return out
}

// SinceInstant is now minus d, in UTC.
func SinceInstant(now time.Time, d time.Duration) time.Time { return now.Add(-d).UTC() }

// QuotaSummary is the goal gs's quota use q against its limits (the
// compute limit only when goals.<g>.quota.compute is a fraction below 1).
func QuotaSummary(gs *specs.Goal, q input.QuotaFacts) *parts.QuotaSummary {
	s := &parts.QuotaSummary{
		Rounds:  parts.Usage{Used: q.Rounds, Limit: gs.Quota.Rounds, InFlight: q.RoundsInFlight},
		Tokens:  parts.Usage{Used: q.Tokens, Limit: gs.Quota.Tokens},
		CostUSD: parts.UsageF{Used: q.CostUSD, Limit: gs.Quota.CostUSD},
		Compute: parts.UsageF{Used: q.ComputeSeconds},
	}
	if gs.Quota.Compute < 1 {
		l := q.ComputeLimitSeconds
		s.Compute.Limit = &l
	}
	if q.ResetsAt != "" {
		r := q.ResetsAt
		s.ResetsAt = &r
	}
	return s
}

// NextFunc is what loopx status lists of a goal's todos (all of them, as
// the store orders them, depsOpen nil; or a window of them with their
// open dependencies: readmodel.Model.StatusWindow) with its open gates at
// now: next, the todos should_run would select, in its order; forYou,
// the todos for humans (claimorder.Next: data.loopx.lib.next_todos).
type NextFunc func(todos []records.Todo, depsOpen [][]string, gates []records.Gate, now time.Time) (next, forYou []records.Todo, err error)

// summarized is a StatusSource that keeps a summary of each goal's todos
// and windows of them (the read model), so that status reads no todo
// beyond a window.
type summarized interface {
	TodoSummary(goal string) (readmodel.Summary, bool)
	StatusWindow(goal string, least int) (w readmodel.Window, humansPartial bool, ok bool)
}

// statusWindows are the windows of the claim order status tries before it
// reads every todo (after the first: when too few of the window's todos
// are next, the todos a user claim policy denies left out).
var statusWindows = []int{2 * maxNext, readmodel.HeadSize}

// nextTodos is next over src's windows of goal's todos while a window
// holds as many next todos and todos for humans as status lists, else over
// todos (all of goal's; read from src when nil). Errors: src's, next's.
func nextTodos(src StatusSource, goal string, todos []records.Todo, gates []records.Gate, now time.Time, next NextFunc) (nx, you []records.Todo, err error) {
	if ws, ok := src.(summarized); ok && todos == nil {
		for _, least := range statusWindows {
			w, morehumans, ok := ws.StatusWindow(goal, least)
			if !ok {
				break
			}
			if nx, you, err = next(w.Todos, w.DepsOpen, gates, now); err != nil {
				return nil, nil, err
			}
			if len(you) < maxNext && morehumans {
				break // the todos for humans: only all todos hold them all
			}
			if len(nx) >= maxNext || !w.Partial {
				return nx, you, nil
			}
		}
	}
	if todos == nil {
		if todos, err = src.Todos(goal); err != nil {
			return nil, nil, err
		}
	}
	return next(todos, nil, gates, now)
}

// maxNext is how many todos status lists as next, and as for you.
const maxNext = 5

// GoalStatus is goal's summary for `loopx status` at now: its status, todo
// counts, the next five todos should_run would select (next) and the
// human todos (for you), the newest open todo, open gates, the last round,
// quota spent, the last handoff and the evidence count. The goal must be
// in b's spec. Errors: src's, next's.
func GoalStatus(b inputstate.Builder, src StatusSource, goal string, now time.Time, next NextFunc) (render.GoalStatus, error) {
	spec := b.GoalSpec(goal)
	out := render.GoalStatus{ID: goal, Objective: spec.Objective, Todos: map[string]int{}, NextTodos: []parts.TodoRef{}, ForYou: []parts.TodoRef{}, OpenGates: []contract.Gate{}}
	gst, err := src.Goal(goal)
	if err != nil {
		return out, err
	}
	out.Status, out.Reason = gst.Status, gst.Reason
	// The counts and the newest todo from the summary the read model
	// keeps, or from every todo.
	var todos []records.Todo
	sum, ok := readmodel.Summary{}, false
	if ss, is := src.(summarized); is {
		sum, ok = ss.TodoSummary(goal)
	}
	if !ok {
		if todos, err = src.Todos(goal); err != nil {
			return out, err
		}
		if todos == nil {
			todos = []records.Todo{}
		}
		sum = readmodel.Summarize(todos, nil)
	}
	maps.Copy(out.Todos, sum.Counts)
	if n := sum.Newest; n != nil {
		out.NewestTodo = &parts.TodoRef{ID: n.ID, Title: n.Title, Kind: n.Kind}
	}
	open, err := b.OpenGates(src, goal)
	if err != nil {
		return out, err
	}
	if len(open) > 0 {
		out.OpenGates = contract.Gates(open)
	}
	nx, you, err := nextTodos(src, goal, todos, open, now, next)
	if err != nil {
		return out, err
	}
	for _, t := range nx[:min(len(nx), maxNext)] {
		out.NextTodos = append(out.NextTodos, parts.TodoRef{ID: t.ID, Title: t.Title, Kind: t.Kind})
	}
	for _, t := range you[:min(len(you), maxNext)] {
		out.ForYou = append(out.ForYou, parts.TodoRef{ID: t.ID, Title: t.Title, Kind: t.Kind})
	}
	rounds, err := inputstate.HotRoundsOf(src, goal)
	if err != nil {
		return out, err
	}
	if len(rounds) > 0 {
		r := contract.RoundOf(rounds[len(rounds)-1])
		out.LastRound = &r
	}
	ledger, err := inputstate.WindowLedger(src, goal, spec, now)
	if err != nil {
		return out, err
	}
	out.Quota = QuotaSummary(spec, inputstate.QuotaFacts(spec, ledger, rounds, now))
	hs, err := src.Handoffs(goal)
	if err != nil {
		return out, err
	}
	if len(hs) > 0 {
		h := contract.HandoffOf(hs[len(hs)-1])
		out.LastHandoff = &h
	}
	out.Evidence, err = src.EvidenceCount(goal)
	return out, err
}

// Answered are the answered gates of goal that concerned agent (it raised
// them, or they named it) whose answer agent has not heard yet: answered
// by someone else, after agent's last finished round on goal (a round
// that finished at the answer's instant or later heard it), oldest first.
// Errors: src's.
func Answered(src inputstate.Source, goal, agent string) ([]records.Gate, error) {
	if agent == "" {
		return nil, nil
	}
	gates, err := src.Gates(goal)
	if err != nil {
		return nil, err
	}
	rounds, err := inputstate.HotRoundsOf(src, goal)
	if err != nil {
		return nil, err
	}
	var heard time.Time
	for _, r := range rounds {
		if r.Agent == agent && r.Status == records.RoundFinished && r.FinishedAt.After(heard) {
			heard = r.FinishedAt
		}
	}
	var out []records.Gate
	for _, g := range gates {
		a := g.Answer
		if a == nil || g.Status == records.GateOpen || a.By == agent || (!heard.IsZero() && !heard.Before(a.At)) {
			continue
		}
		if g.RaisedBy == agent || slices.Contains(g.ScopeAgents, agent) {
			out = append(out, g)
		}
	}
	return out, nil
}

// Turn fills what the prompt of t.Goal shows from src at now: the
// objective and scope rules of gs (the goal's spec, not nil), the open
// gates, the answers t.Agent has not heard yet (Answered), the latest
// handoff and the fresh evidence. Errors: src's.
func Turn(b inputstate.Builder, src PromptSource, gs *specs.Goal, t *render.Turn, now time.Time) error {
	t.Objective = gs.Objective
	t.Scope = render.Scope{Write: gs.Scope.Write, Deny: gs.Scope.Deny, CommandsDeny: gs.Scope.Commands.Deny, CommandsAsk: gs.Scope.Commands.Ask}
	var err error
	if t.Gates, err = b.OpenGates(src, t.Goal); err != nil {
		return err
	}
	if t.Answers, err = Answered(src, t.Goal, t.Agent); err != nil {
		return err
	}
	hs, err := src.Handoffs(t.Goal)
	if err != nil {
		return err
	}
	if len(hs) > 0 {
		t.Handoff = &hs[len(hs)-1]
	}
	evidence, err := src.EvidenceList(t.Goal, 0)
	if err != nil {
		return err
	}
	t.Evidence = FreshEvidence(evidence, StaleAfter(gs), now)
	return nil
}

// Review fills the review packet rv of rv.Goal from src at now: its
// status, the instant it starts from (since ago when since > 0, else the
// last review.generated event, else DefaultReviewWindow ago), the goal's
// events and the project-wide ones since then, the rounds since
// then or open, the open gates, the counted polls of the open gates and
// of those polled since then, the goal's leases among held (by expiry),
// up to 20 evidence records with their freshness, the quota spent and the
// latest handoff. gs is the goal's spec (not nil). Errors: src's.
func Review(b inputstate.Builder, src ReviewSource, gs *specs.Goal, rv *render.Review, since time.Duration, held map[string][]render.HeldLease, now time.Time) error {
	st, err := src.Goal(rv.Goal)
	if err != nil {
		return err
	}
	rv.Status = st.Status
	rv.Since = SinceInstant(now, DefaultReviewWindow)
	var evs []records.Event
	if err := src.Events(func(ev records.Event) bool {
		// Project-wide events (the rules in effect: rules.adopted, refused
		// adoptions and restores; the store itself: store.refused,
		// store.accepted, store.salvaged, recoveries and migrations;
		// the history pruned or a refused prune; agents registered) are
		// every goal's: in each review. retention.Reviewed counts them
		// reviewed once every goal's review covered them.
		if ev.Goal == rv.Goal || ev.Goal == "" {
			if ev.Kind == ReviewEventKind && since == 0 && !ev.At.After(now) {
				rv.Since, rv.SinceLastReview, evs = ev.At, true, evs[:0]
				return true
			}
			evs = append(evs, ev)
		}
		return true
	}); err != nil {
		return err
	}
	if since > 0 {
		rv.Since = SinceInstant(now, since)
	}
	rv.Events = []records.Event{}
	for _, ev := range evs {
		if !ev.At.Before(rv.Since) && ev.Kind != ReviewEventKind {
			rv.Events = append(rv.Events, ev)
		}
	}
	rounds, err := src.Rounds(rv.Goal)
	if err != nil {
		return err
	}
	rv.Rounds = []records.Round{}
	for _, r := range rounds {
		if !r.StartedAt.Before(rv.Since) || (!r.FinishedAt.IsZero() && !r.FinishedAt.Before(rv.Since)) || r.Status == records.RoundOpen {
			rv.Rounds = append(rv.Rounds, r)
		}
	}
	if rv.OpenGates, err = b.OpenGates(src, rv.Goal); err != nil {
		return err
	}
	polls, err := src.GatePolls(rv.Goal)
	if err != nil {
		return err
	}
	rv.GatePolls = []records.GatePoll{}
	for _, p := range polls {
		if !p.LastAt.Before(rv.Since) || slices.ContainsFunc(rv.OpenGates, func(g records.Gate) bool { return g.ID == p.Gate }) {
			rv.GatePolls = append(rv.GatePolls, p)
		}
	}
	rv.Leases = []render.HeldLease{}
	for _, ls := range held {
		for _, l := range ls {
			if l.Goal == rv.Goal {
				rv.Leases = append(rv.Leases, l)
			}
		}
	}
	slices.SortFunc(rv.Leases, func(a, b render.HeldLease) int { return strings.Compare(a.ExpiresAt+a.Todo, b.ExpiresAt+b.Todo) })
	evidence, err := src.EvidenceList(rv.Goal, 0)
	if err != nil {
		return err
	}
	rv.EvidenceTotal = len(evidence)
	rv.Evidence = []render.ReviewEvidence{}
	after := StaleAfter(gs)
	for i, ev := range evidence {
		if i == 20 {
			break
		}
		rv.Evidence = append(rv.Evidence, render.ReviewEvidence{Evidence: ev, Stale: Stale(ev.CreatedAt, now, after)})
	}
	ledger, err := inputstate.WindowLedger(src, rv.Goal, gs, now)
	if err != nil {
		return err
	}
	rv.Quota = QuotaSummary(gs, inputstate.QuotaFacts(gs, ledger, rounds, now))
	hs, err := src.Handoffs(rv.Goal)
	if len(hs) > 0 {
		rv.Handoff = &hs[len(hs)-1]
	}
	return err
}

// AgentInfo is an agent with its heartbeat facts: when it was last seen
// (any round start or finish, claim, renew, release or transfer), its
// open round, and the live leases it holds (CurrentLease is the one
// expiring last). Known says what makes it known: AgentDeclared,
// AgentRegistered or AgentHeartbeatOnly.
type AgentInfo struct {
	contract.Agent
	Known        string             `json:"known"`
	CurrentLease *render.HeldLease  `json:"current_lease"`
	Leases       []render.HeldLease `json:"leases"`
}

// AgentDeclared, AgentRegistered and AgentHeartbeatOnly are the values of
// AgentInfo.Known: declared in the adopted spec, registered by a human
// (`loopx agent register`), or only a record loopx wrote when the agent
// acted, which grants nothing (an agent the spec no longer declares).
const (
	AgentDeclared      = "declared"
	AgentRegistered    = "registered"
	AgentHeartbeatOnly = "heartbeat only"
)

// Agents is every agent of as and every agent declared (the adopted
// spec's agents; nil when it is broken), by id, with the live leases held
// holds for it (`loopx agent list`): a declared agent that never acted
// has no record and shows with its spec's host, role and mode.
func Agents(as []records.Agent, declared map[string]specs.Agent, held map[string][]render.HeldLease) []AgentInfo {
	out := []AgentInfo{}
	seen := map[string]bool{}
	for _, a := range as {
		seen[a.ID] = true
		info := AgentInfo{Agent: contract.AgentOf(a), Known: AgentHeartbeatOnly}
		switch _, ok := declared[a.ID]; {
		case ok:
			info.Known = AgentDeclared
		case a.Registered:
			info.Known = AgentRegistered
		}
		out = append(out, info)
	}
	for id, sa := range declared {
		if seen[id] {
			continue
		}
		role, mode := sa.Role, sa.Mode
		if role == "" {
			role = "executor"
		}
		if mode == "" {
			mode = "active"
		}
		out = append(out, AgentInfo{Agent: contract.Agent{ID: id, Host: sa.Host, Role: role, Mode: mode}, Known: AgentDeclared})
	}
	slices.SortStableFunc(out, func(a, b AgentInfo) int { return strings.Compare(a.ID, b.ID) })
	for i := range out {
		info := &out[i]
		info.Leases = held[info.ID]
		if info.Leases == nil {
			info.Leases = []render.HeldLease{}
		}
		for j := range info.Leases {
			if info.CurrentLease == nil || info.Leases[j].ExpiresAt > info.CurrentLease.ExpiresAt {
				info.CurrentLease = &info.Leases[j]
			}
		}
	}
	return out
}

// LeaseSource is what LiveLeases reads: a kernel read transaction.
type LeaseSource interface {
	Now() time.Time
	Todos(goal string) ([]records.Todo, error)
}

// LiveLeases maps each holder to the live leases it holds on the todos of
// goals (in goal and store order). Errors: src's.
func LiveLeases(src LeaseSource, goals []string) (map[string][]render.HeldLease, error) {
	now := src.Now()
	out := map[string][]render.HeldLease{}
	for _, g := range goals {
		todos, err := src.Todos(g)
		if err != nil {
			return nil, err
		}
		for _, t := range todos {
			if l := t.Lease; l.LiveAt(now) {
				out[l.Holder] = append(out[l.Holder], render.HeldLease{Todo: t.ID, Goal: g, Title: t.Title, Version: l.Version,
					Epoch: l.Epoch, ExpiresAt: records.RFC3339(l.ExpiresAt), Round: l.Round})
			}
		}
	}
	return out, nil
}
