package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/lease"
	"github.com/loopx-dev/loopx/engine/snapshot"
	"github.com/loopx-dev/loopx/engine/todos"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
)

// DefaultLeaseTTL is the claim lease a round takes on its todo (design §9).
const DefaultLeaseTTL = 45 * time.Minute

// StartResult is what StartRound returns: the decision, and on "run" the
// opened round and its claimed todo.
type StartResult struct {
	Decision Decision      `json:"decision"`
	Round    *kernel.Round `json:"round"`
	Todo     *kernel.Todo  `json:"todo"`
	// Gate is the stall gate raised by this start, if any.
	Gate *kernel.Gate `json:"gate,omitempty"`
}

// StartRound decides should_run for (goal, agent) and, on "run", claims the
// selected todo and opens a round in one transaction. At the stall limit it
// raises the stall gate. Errors: errs.Usage for an unknown goal, the
// spec's errors, store errors.
func (e *Engine) StartRound(ctx context.Context, goal, agent string) (StartResult, error) {
	var res StartResult
	if err := e.RequireGoal(goal); err != nil {
		return res, err
	}
	// Prepare both decisions before the store is opened; then hold the
	// store (and its lock) from the decision to the claim, so that no other
	// process claims the selected todo in between; an unusable store is
	// reported by Decide (deny).
	e.prepareAll(ctx, "should_run", "claim")
	_, _ = e.Store()
	d, err := e.Decide(ctx, Request{Query: "should_run", Goal: goal, Agent: agent})
	res.Decision = d
	if err != nil {
		return res, err
	}
	if d.Verdict == "wait_human" && d.HasReason("stall_limit") {
		err := e.update(func(tx *kernel.Tx) error {
			g, err := e.raiseStallGate(tx, goal)
			res.Gate = g
			return err
		})
		return res, err
	}
	if d.Verdict != "run" || d.Todo == nil {
		if d.Verdict == "wait_human" {
			for _, r := range d.Reasons {
				if r.Code == "gate_open" {
					e.recordViolation(goal, agent, gateViolation(gateIDFromRef(r.Ref), "round start refused: "+r.Message, nil),
						map[string]any{"mutation": "round.start"})
					break
				}
			}
		}
		return res, nil
	}
	var cd claimDecision
	err = e.update(func(tx *kernel.Tx) error {
		now := tx.Now()
		cd = claimDecision{}
		if err := e.settleOpenRounds(tx, goal, agent); err != nil {
			return err
		}
		t, err := tx.Todo(d.Todo.ID)
		if err != nil {
			return err
		}
		facts, err := e.claimTodoFacts(tx, t, agent)
		if err != nil {
			return err
		}
		if cd, err = e.decideClaim(ctx, tx, goal, agent, ClaimFacts{Op: "round_start", Todo: facts}); err != nil {
			return err
		}
		if !cd.d.Allow {
			return e.refusal(cd.d)
		}
		r, err := tx.AddRound(kernel.Round{Goal: goal, Agent: agent, Todo: t.ID, DecisionID: d.DecisionID, Runner: e.runner})
		if err != nil {
			return err
		}
		claim(&t, agent, r.ID, now, e.roundLeaseTTL())
		if err := tx.PutTodo(t); err != nil {
			return err
		}
		if err := tx.AppendEvent(kernel.Event{Kind: "todo.claimed", Goal: goal, Actor: agent, Subject: t.ID,
			Data: map[string]any{"round": r.ID, "version": t.Lease.Version, "epoch": t.Lease.Epoch, "expires_at": kernel.RFC3339(t.Lease.ExpiresAt)}}); err != nil {
			return err
		}
		if err := e.heartbeat(tx, agent, goal, r.ID); err != nil {
			return err
		}
		res.Round, res.Todo = &r, &t
		return nil
	})
	e.logClaim(cd)
	e.recordViolation(goal, agent, err, map[string]any{"mutation": "round.start", "todo": d.Todo.ID})
	return res, err
}

// gateIDFromRef extracts the id from a reason ref "gate <id>".
func gateIDFromRef(ref string) string {
	if len(ref) > 5 && ref[:5] == "gate " {
		return ref[5:]
	}
	return ref
}

// claim gives t a lease held by agent: version +1 always, epoch +1 when the
// holder changes or the previous lease was released or expired. A holder
// re-claiming its live lease (a round start on its own claim) keeps the
// lease's TTL and idempotency key.
func claim(t *kernel.Todo, agent, round string, now time.Time, ttl time.Duration) {
	l := kernel.Lease{Holder: agent, AcquiredAt: now, Round: round, Version: 1, Epoch: 1}
	if old := t.Lease; old != nil {
		l.Version = old.Version + 1
		l.Epoch = old.Epoch
		if old.Holder != agent || !old.LiveAt(now) {
			l.Epoch++
		} else {
			l.AcquiredAt, l.IdempotencyKey = old.AcquiredAt, old.IdempotencyKey
			if old.TTLSeconds > 0 {
				ttl = time.Duration(old.TTLSeconds) * time.Second
			}
		}
	}
	l.ExpiresAt, l.TTLSeconds = now.Add(ttl), int64(ttl/time.Second)
	t.Lease = &l
	t.Status = kernel.TodoClaimed
}

// release ends t's lease, leaving a tombstone whose version keeps growing.
func release(t *kernel.Todo) {
	if t.Lease != nil && !t.Lease.Released {
		t.Lease.Released = true
		t.Lease.Version++
	}
}

// heartbeat records that agent was seen now, registering a spec agent on
// first use.
func (e *Engine) heartbeat(tx *kernel.Tx, agent, goal, round string) error {
	a, err := tx.Agent(agent)
	if err != nil && !IsNotFound(err) {
		return err
	}
	if IsNotFound(err) {
		a = kernel.Agent{ID: agent, Role: "executor", Mode: "active", RegisteredAt: tx.Now()}
		if e.spec != nil && e.spec.Spec != nil {
			if sa, ok := e.spec.Spec.Agents[agent]; ok {
				a.Host, a.Role, a.Mode = sa.Host, sa.Role, sa.Mode
			}
		}
	}
	if goal != "" && !slices.Contains(a.Goals, goal) {
		a.Goals = append(a.Goals, goal)
	}
	a.LastSeenAt, a.CurrentRound = tx.Now(), round
	return tx.PutAgent(a)
}

// raiseStallGate raises the goal's stall gate unless one is open already.
func (e *Engine) raiseStallGate(tx *kernel.Tx, goal string) (*kernel.Gate, error) {
	gates, err := tx.Gates(goal)
	if err != nil {
		return nil, err
	}
	for _, g := range gates {
		if g.Reason == "stall" && g.Status == kernel.GateOpen {
			return &g, nil
		}
	}
	n := int64(3)
	if gs := e.facts().GoalSpec(goal); gs != nil {
		n = gs.Stall.MaxNoProgress
	}
	g, err := tx.AddGate(kernel.Gate{Goal: goal, ScopeKind: "goal", RaisedBy: "loopx", Reason: "stall",
		Question: fmt.Sprintf("The last %d rounds of goal %s made no progress. Should agents keep working on it?", n, goal),
		Options:  []string{"approve", "reject"}, Answerers: []string{"human"}})
	return &g, err
}

// FinishRequest is how a round ended.
type FinishRequest struct {
	// Agent, when set, must be the round's agent.
	Agent string
	// Outcome is progress, failed, no_change, preflight_failed or dry_run.
	// Empty with a ResultHash means: no_change when the hash equals the
	// monitor's last one, else progress.
	Outcome string
	Summary string
	// Tokens and CostUSD are what the round used (charged with the round).
	Tokens  int64
	CostUSD float64
	// Done marks the round's todo done.
	Done bool
	// ResultHash is a monitor poll's result hash.
	ResultHash string
	// Evidence is recorded with the finish (ID, Goal, Round set by the engine).
	Evidence []kernel.Evidence
	// Handoff is the summary for the next round ("" = none); NextTodo adds a
	// successor todo, for agent NextFor when set.
	Handoff  string
	NextTodo string
	NextFor  string
	// ExpectedVersion, when not 0, must be the todo's lease version
	// (version_mismatch otherwise): the holder's compare-and-swap.
	ExpectedVersion uint64
}

// Receipt is the settled result of a finish. Finishing a finished round
// returns the stored receipt with Replayed set and charges nothing.
type Receipt struct {
	Round    kernel.Round        `json:"round"`
	Charged  bool                `json:"charged"`
	Ledger   *kernel.LedgerEntry `json:"ledger"`
	Todo     *kernel.Todo        `json:"todo"`
	Handoff  *kernel.Handoff     `json:"handoff"`
	NextTodo *kernel.Todo        `json:"next_todo"`
	Gate     *kernel.Gate        `json:"gate"`
	Replayed bool                `json:"replayed"`
}

var outcomes = []string{kernel.OutcomeProgress, kernel.OutcomeFailed, kernel.OutcomeNoChange, kernel.OutcomePreflightFailed, kernel.OutcomeDryRun}

// Charged reports whether an outcome charges quota (progress, failed).
func Charged(outcome string) bool {
	return outcome == kernel.OutcomeProgress || outcome == kernel.OutcomeFailed
}

// FinishRound settles a round in ONE transaction: outcome, evidence,
// handoff, todo status, lease release, ledger entry (charge for progress
// and failed, a zero entry otherwise) and, at the stall limit, the stall
// gate. Errors: errs.Usage (unknown round, bad outcome, a NextTodo title
// with a control character: bad_title), errs.No
// (lease_lost, not_round_agent).
func (e *Engine) FinishRound(ctx context.Context, roundID string, req FinishRequest) (Receipt, error) {
	var rc Receipt
	if req.NextTodo != "" {
		if err := todos.CheckTitle(req.NextTodo); err != nil {
			return rc, err
		}
	}
	var cd claimDecision
	err := e.updatePrepared(ctx, "claim", func(tx *kernel.Tx) error {
		rc, cd = Receipt{}, claimDecision{}
		now := tx.Now()
		r, err := tx.Round(roundID)
		if IsNotFound(err) {
			return Usagef("unknown_round", "unknown round %q", roundID)
		}
		if err != nil {
			return err
		}
		if req.Outcome != "" && !slices.Contains(outcomes, req.Outcome) {
			return Usagef("bad_outcome", "outcome %q is not one of %v", req.Outcome, outcomes)
		}
		if req.Tokens < 0 || req.CostUSD < 0 {
			return Usagef("bad_usage", "tokens and cost must not be negative (got %d tokens, %g USD)", req.Tokens, req.CostUSD)
		}
		if r.Status == kernel.RoundFinished {
			return e.storedReceipt(tx, r, &rc)
		}
		if req.Agent != "" && req.Agent != r.Agent {
			return refused("not_round_agent", fmt.Sprintf("round %s belongs to agent %s, not %s", r.ID, r.Agent, req.Agent), nil)
		}
		var t *kernel.Todo
		if r.Todo != "" {
			td, err := tx.Todo(r.Todo)
			if err != nil && !IsNotFound(err) {
				return err
			}
			if err == nil {
				t = &td
			}
		}
		outcome := req.Outcome
		if outcome == "" && req.ResultHash != "" && t != nil {
			outcome = kernel.OutcomeProgress
			if t.LastResultHash == req.ResultHash {
				outcome = kernel.OutcomeNoChange
			}
		}
		if !slices.Contains(outcomes, outcome) {
			return Usagef("bad_outcome", "outcome %q is not one of %v", outcome, outcomes)
		}
		var lost *errs.Error
		switch {
		case t != nil && (t.Lease == nil || t.Lease.Released || t.Lease.Holder != r.Agent || t.Lease.Round != r.ID):
			holder := "nobody (released)"
			if t.Lease != nil && !t.Lease.Released {
				holder = t.Lease.Holder
				if t.Lease.Holder == r.Agent {
					holder += " in round " + t.Lease.Round
				}
			}
			lost = refused("lease_lost", fmt.Sprintf("round %s no longer holds todo %s (now held by %s): nothing recorded", r.ID, t.ID, holder), nil)
		case t != nil && !t.Lease.LiveAt(now):
			lost = refused("lease_lost", fmt.Sprintf("round %s's lease on todo %s expired at %s: nothing recorded (renew with loopx todo renew)", r.ID, t.ID, kernel.RFC3339(t.Lease.ExpiresAt)), map[string]any{"todo": t.ID, "expires_at": kernel.RFC3339(t.Lease.ExpiresAt), "version": t.Lease.Version})
		}
		if lost != nil {
			if Charged(outcome) || req.Done {
				return lost
			}
			// An uncharged outcome still closes the round (so a lost round
			// is never stuck open); the todo, now someone else's, is left alone.
			t = nil
			req.Summary = strings.TrimSpace(req.Summary + " (lease lost: todo left as it is)")
		}
		if t != nil && req.ExpectedVersion != 0 && t.Lease.Version != req.ExpectedVersion {
			return refused("version_mismatch", fmt.Sprintf("todo %s: expected lease version %d, actual %d: nothing recorded", t.ID, req.ExpectedVersion, t.Lease.Version), map[string]any{"todo": t.ID, "expected": req.ExpectedVersion, "actual": t.Lease.Version})
		}
		charged := Charged(outcome)
		if charged || req.Done {
			cf := ClaimFacts{Op: "finish", Round: r.ID, Outcome: outcome}
			if t != nil {
				if cf.Todo, err = e.claimTodoFacts(tx, *t, r.Agent); err != nil {
					return err
				}
			} else if r.Todo != "" {
				cf.Todo = &ClaimTodo{TodoFacts: TodoFacts{ID: r.Todo, DepsOpen: []string{}, Labels: []string{}}, Goal: r.Goal}
			}
			if cd, err = e.checkProgress(ctx, tx, r.Goal, r.Agent, cf); err != nil {
				return err
			}
		}
		entry := kernel.LedgerEntry{Goal: r.Goal, Round: r.ID, Agent: r.Agent, Reason: outcome}
		if charged {
			entry.Rounds, entry.Tokens, entry.CostUSD = 1, req.Tokens, req.CostUSD
			entry.ComputeSeconds = now.Sub(r.StartedAt).Seconds()
		}
		le, err := tx.AppendLedger(entry)
		if err != nil {
			return err
		}
		rc.Ledger = &le
		for _, ev := range req.Evidence {
			ev.Goal, ev.Round, ev.Todo, ev.By = r.Goal, r.ID, r.Todo, r.Agent
			saved, err := tx.AddEvidence(ev)
			if err != nil {
				return err
			}
			r.Evidence = append(r.Evidence, saved.ID)
		}
		if t != nil {
			release(t)
			t.Status = kernel.TodoOpen
			if req.Done {
				t.Status = kernel.TodoDone
			}
			if t.Kind == kernel.KindMonitor {
				t.NextDueAt = now.Add(time.Duration(t.EverySeconds) * time.Second)
				if req.ResultHash != "" {
					t.LastResultHash = req.ResultHash
				}
			}
			if err := tx.PutTodo(*t); err != nil {
				return err
			}
			rc.Todo = t
		}
		if req.Handoff != "" || req.NextTodo != "" {
			h, err := tx.AddHandoff(kernel.Handoff{Goal: r.Goal, Round: r.ID, Agent: r.Agent, Summary: req.Handoff, NextTodo: req.NextTodo, For: req.NextFor})
			if err != nil {
				return err
			}
			r.Handoff, rc.Handoff = h.ID, &h
		}
		if req.NextTodo != "" {
			nt := kernel.Todo{Goal: r.Goal, Title: req.NextTodo, Priority: 2, CreatedBy: r.Agent}
			if t != nil {
				nt.Priority = t.Priority
			}
			if req.NextFor != "" {
				nt.Labels = []string{"for:" + req.NextFor}
			}
			saved, err := tx.AddTodo(nt)
			if err != nil {
				return err
			}
			rc.NextTodo = &saved
		}
		spec, policy := e.revisions()
		r.Status, r.FinishedAt, r.Outcome, r.Summary = kernel.RoundFinished, now, outcome, req.Summary
		r.Tokens, r.CostUSD, r.Charged = req.Tokens, req.CostUSD, charged
		r.GoalRevAfter, r.SpecRev, r.PolicyRev, r.ResultHash = tx.Revision(), spec, policy, req.ResultHash
		if err := tx.PutRound(r); err != nil {
			return err
		}
		if err := tx.AppendEvent(kernel.Event{Kind: "round.finished", Goal: r.Goal, Actor: r.Agent, Subject: r.ID, Message: req.Summary,
			Data: map[string]any{"outcome": outcome, "charged": charged, "todo": r.Todo, "tokens": req.Tokens, "cost_usd": req.CostUSD}}); err != nil {
			return err
		}
		if err := e.heartbeat(tx, r.Agent, r.Goal, ""); err != nil {
			return err
		}
		rc.Round, rc.Charged = r, charged
		return e.maybeStall(tx, r.Goal, &rc)
	})
	e.logClaim(cd)
	if _, ok := violatedGate(err); ok {
		r, _ := e.Round(roundID)
		e.recordViolation(r.Goal, r.Agent, err, map[string]any{"mutation": "round.finish", "round": roundID, "outcome": req.Outcome})
	}
	return rc, err
}

// maybeStall raises the stall gate when the goal's rounds in a row without
// progress reach stall.max_no_progress.
func (e *Engine) maybeStall(tx *kernel.Tx, goal string, rc *Receipt) error {
	gs := e.facts().GoalSpec(goal)
	if gs == nil || gs.Stall.MaxNoProgress <= 0 {
		return nil
	}
	rounds, err := tx.Rounds(goal)
	if err != nil {
		return err
	}
	var reset time.Time
	gates, err := tx.Gates(goal)
	if err != nil {
		return err
	}
	for _, g := range gates {
		if g.Reason == "stall" && g.Answer != nil && g.Answer.At.After(reset) {
			reset = g.Answer.At
		}
	}
	var finished []kernel.Round
	for _, r := range rounds {
		if r.Status == kernel.RoundFinished {
			finished = append(finished, r)
		}
	}
	slices.SortStableFunc(finished, func(a, b kernel.Round) int { return a.FinishedAt.Compare(b.FinishedAt) })
	if snapshot.ConsecutiveNoProgress(finished, reset) < gs.Stall.MaxNoProgress {
		return nil
	}
	g, err := e.raiseStallGate(tx, goal)
	rc.Gate = g
	return err
}

func (e *Engine) storedReceipt(tx *kernel.Tx, r kernel.Round, rc *Receipt) error {
	rc.Round, rc.Charged, rc.Replayed = r, r.Charged, true
	ledger, err := tx.Ledger(r.Goal)
	if err != nil {
		return err
	}
	for i := range ledger {
		if ledger[i].Round == r.ID {
			rc.Ledger = &ledger[i]
		}
	}
	if r.Todo != "" {
		if t, err := tx.Todo(r.Todo); err == nil {
			rc.Todo = &t
		}
	}
	if r.Handoff != "" {
		hs, err := tx.Handoffs(r.Goal)
		if err != nil {
			return err
		}
		for i := range hs {
			if hs[i].ID == r.Handoff {
				rc.Handoff = &hs[i]
			}
		}
	}
	return nil
}

// RequireGoal returns nil when the spec declares goal; the spec's error
// when the spec is broken; an errs.Usage error naming the goal otherwise.
func (e *Engine) RequireGoal(goal string) error {
	if e.specErr != nil {
		return e.specErr
	}
	if goal == "" {
		return Usagef("missing_goal", "no goal given (use --goal; goals: %v)", e.GoalIDs())
	}
	if e.facts().GoalSpec(goal) == nil {
		return Usagef("unknown_goal", "unknown goal %q (spec goals: %v)", goal, e.GoalIDs())
	}
	return nil
}

// GoalIDs lists the spec's goal ids, sorted.
func (e *Engine) GoalIDs() []string {
	if e.spec == nil || e.spec.Spec == nil {
		return nil
	}
	ids := make([]string, 0, len(e.spec.Spec.Goals))
	for g := range e.spec.Spec.Goals {
		ids = append(ids, g)
	}
	slices.Sort(ids)
	return ids
}

// settleOpenRounds enforces one round at a time per agent and goal: an open
// round of agent that still holds its todo's live lease refuses the start
// (round_open); one that lost its lease (expired, released, taken) is
// closed as abandoned — not charged — so it never stays open forever.
func (e *Engine) settleOpenRounds(tx *kernel.Tx, goal, agent string) error {
	rounds, err := tx.Rounds(goal)
	if err != nil {
		return err
	}
	now := tx.Now()
	for _, r := range rounds {
		if r.Status != kernel.RoundOpen || r.Agent != agent {
			continue
		}
		if r.Todo != "" {
			if t, err := tx.Todo(r.Todo); err == nil && t.Lease.LiveAt(now) && t.Lease.Round == r.ID && t.Lease.Holder == agent {
				return refused("round_open", fmt.Sprintf("agent %s already has round %s open on todo %s (lease until %s): finish it first (loopx round finish %s --outcome …)",
					agent, r.ID, r.Todo, kernel.RFC3339(t.Lease.ExpiresAt), r.ID), map[string]any{"round": r.ID, "todo": r.Todo})
			}
		}
		r.Status, r.FinishedAt, r.Summary = kernel.RoundAbandoned, now, "abandoned: its lease expired or moved before it finished"
		if err := tx.PutRound(r); err != nil {
			return err
		}
		if err := tx.AppendEvent(kernel.Event{Kind: "round.abandoned", Goal: goal, Actor: "loopx", Subject: r.ID,
			Message: r.Summary, Data: map[string]any{"agent": agent, "todo": r.Todo}}); err != nil {
			return err
		}
	}
	return nil
}

// roundLeaseTTL is the lease a round takes: Options.LeaseTTL or
// DefaultLeaseTTL.
func (e *Engine) roundLeaseTTL() time.Duration {
	if e.leaseTTL > 0 {
		return e.leaseTTL
	}
	return DefaultLeaseTTL
}

// CheckLeaseTTL validates a lease TTL flag (0 = the default). Errors: a
// errs.Usage (bad_ttl) outside MinLeaseTTL..MaxLeaseTTL.
func CheckLeaseTTL(ttl time.Duration) error {
	if ttl == 0 {
		return nil
	}
	_, err := lease.CheckTTL(ttl, DefaultLeaseTTL)
	return err
}
