// Package rounds is the mechanics of a round inside its write transaction:
// opening one on a claimed todo, one round at a time per
// agent and goal, settling a finish (outcome, ledger entry, evidence,
// handoff, successor todo, lease release), its stored receipt, the stall
// gate, and an agent's heartbeat. What decides (should_run, the claim
// decision's gate rules) is asked of the caller, the top engine package,
// which owns the store; this package writes through Tx and never imports
// it.
package rounds

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/mutating/todos"
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// DefaultLeaseTTL is the claim lease a round takes on its todo.
const DefaultLeaseTTL = lease.DefaultTTL

// Tx is what a round reads and writes: a kernel write transaction.
type Tx interface {
	Now() time.Time
	Revision() uint64
	AddRound(r records.Round) (records.Round, error)
	Round(id string) (records.Round, error)
	Rounds(goal string) ([]records.Round, error)
	HotRounds(goal string) ([]records.Round, error)
	OpenRounds(goal, agent string) ([]records.Round, error)
	PutRound(r records.Round) error
	Todo(id string) (records.Todo, error)
	Todos(goal string) ([]records.Todo, error)
	AddTodo(t records.Todo) (records.Todo, error)
	PutTodo(t records.Todo) error
	Gates(goal string) ([]records.Gate, error)
	AddGate(g records.Gate) (records.Gate, error)
	Agent(id string) (records.Agent, error)
	PutAgent(a records.Agent) error
	Ledger(goal string) ([]records.LedgerEntry, error)
	AppendLedger(e records.LedgerEntry) (records.LedgerEntry, error)
	AddEvidence(e records.Evidence) (records.Evidence, error)
	AddHandoff(h records.Handoff) (records.Handoff, error)
	Handoffs(goal string) ([]records.Handoff, error)
	AppendEvent(e records.Event) error
}

// StartResult is what a round start returns: the decision, and on "run"
// the opened round and its claimed todo.
type StartResult struct {
	Decision decision.Decision `json:"decision"`
	Round    *records.Round    `json:"round"`
	Todo     *records.Todo     `json:"todo"`
	// Gate is the stall gate raised by this start, if any.
	Gate *records.Gate `json:"gate,omitempty"`
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
	// Done marks the round's todo done; on a monitor the claim decision
	// refuses it (data.loopx.claim.monitor_recurs, errs.No): a round never
	// completes a monitor.
	Done bool
	// ResultHash is a monitor poll's result hash.
	ResultHash string
	// Evidence is recorded with the finish (ID, Goal, Round set by the engine).
	Evidence []records.Evidence
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
	Round    records.Round        `json:"round"`
	Charged  bool                 `json:"charged"`
	Ledger   *records.LedgerEntry `json:"ledger"`
	Todo     *records.Todo        `json:"todo"`
	Handoff  *records.Handoff     `json:"handoff"`
	NextTodo *records.Todo        `json:"next_todo"`
	Gate     *records.Gate        `json:"gate"`
	Replayed bool                 `json:"replayed"`
}

// Contract is r as round start prints it (contract.RoundStart).
func (r StartResult) Contract() contract.RoundStart[decision.Decision] {
	return contract.RoundStart[decision.Decision]{Decision: r.Decision, Round: contract.Ptr(r.Round, contract.RoundOf),
		Todo: contract.Ptr(r.Todo, contract.TodoOf), Gate: contract.Ptr(r.Gate, contract.GateOf)}
}

// Contract is r as round finish prints it (contract.Receipt).
func (r Receipt) Contract() contract.Receipt {
	return contract.Receipt{Round: contract.RoundOf(r.Round), Charged: r.Charged, Ledger: contract.Ptr(r.Ledger, contract.LedgerEntryOf),
		Todo: contract.Ptr(r.Todo, contract.TodoOf), Handoff: contract.Ptr(r.Handoff, contract.HandoffOf),
		NextTodo: contract.Ptr(r.NextTodo, contract.TodoOf), Gate: contract.Ptr(r.Gate, contract.GateOf), Replayed: r.Replayed}
}

// Outcomes are a round's outcomes, in the order error messages list them.
var Outcomes = []string{records.OutcomeProgress, records.OutcomeFailed, records.OutcomeNoChange, records.OutcomePreflightFailed, records.OutcomeDryRun}

// Charged reports whether an outcome charges quota (progress, failed).
func Charged(outcome string) bool {
	return outcome == records.OutcomeProgress || outcome == records.OutcomeFailed
}

// Open opens a round of agent on goal for its todo t (the todo
// should_run selected, decided by decisionID) and claims t for it with a lease of
// ttl, with its todo.claimed event and the agent's heartbeat. runner names
// the process running the round ("" for none). spec declares the agents.
func Open(tx Tx, spec *specs.Spec, goal string, t records.Todo, agent, decisionID, runner string, ttl time.Duration) (records.Round, records.Todo, error) {
	r, err := tx.AddRound(records.Round{Goal: goal, Agent: agent, Todo: t.ID, DecisionID: decisionID, Runner: runner})
	if err != nil {
		return r, t, err
	}
	lease.Claim(&t, agent, r.ID, tx.Now(), ttl)
	if err := tx.PutTodo(t); err != nil {
		return r, t, err
	}
	if err := tx.AppendEvent(records.Event{Kind: "todo.claimed", Goal: goal, Actor: agent, Subject: t.ID,
		Data: map[string]any{"round": r.ID, "version": t.Lease.Version, "epoch": t.Lease.Epoch, "expires_at": records.RFC3339(t.Lease.ExpiresAt)}}); err != nil {
		return r, t, err
	}
	return r, t, Heartbeat(tx, spec, agent, r.ID)
}

// Heartbeat records that agent was seen now (round its current round, ""
// for none), creating its record on first use with the spec's host, role
// and mode (an active executor otherwise). It registers nothing: the
// record's goals stay as they are, and a record it creates is not
// Registered (a human's `loopx agent register` is).
func Heartbeat(tx Tx, spec *specs.Spec, agent, round string) error {
	a, err := tx.Agent(agent)
	if err != nil && !errors.Is(err, kernel.ErrNotFound) {
		return err
	}
	if errors.Is(err, kernel.ErrNotFound) {
		a = records.Agent{ID: agent, Role: "executor", Mode: "active", RegisteredAt: tx.Now()}
		if spec != nil {
			if sa, ok := spec.Agents[agent]; ok {
				a.Host, a.Role, a.Mode = sa.Host, sa.Role, sa.Mode
			}
		}
	}
	a.LastSeenAt, a.CurrentRound = tx.Now(), round
	return tx.PutAgent(a)
}

// Touch is Heartbeat keeping the agent's current round.
func Touch(tx Tx, spec *specs.Spec, agent string) error {
	cur := ""
	if a, err := tx.Agent(agent); err == nil {
		cur = a.CurrentRound
	}
	return Heartbeat(tx, spec, agent, cur)
}

// RaiseStallGate raises goal's stall gate (gs its spec, nil for none)
// unless one is open already, which it returns.
func RaiseStallGate(tx Tx, goal string, gs *specs.Goal) (*records.Gate, error) {
	gates, err := tx.Gates(goal)
	if err != nil {
		return nil, err
	}
	for _, g := range gates {
		if g.Reason == "stall" && g.Status == records.GateOpen {
			return &g, nil
		}
	}
	n := int64(3)
	if gs != nil {
		n = gs.Stall.MaxNoProgress
	}
	g, err := tx.AddGate(records.Gate{Goal: goal, ScopeKind: "goal", RaisedBy: "loopx", Reason: "stall",
		Question: fmt.Sprintf("The last %d rounds of goal %s made no progress. Should agents keep working on it?", n, goal),
		Options:  []string{"approve", "reject"}, Answerers: []string{"human"}})
	return &g, err
}

// MaybeStall raises the stall gate when goal's rounds in a row without
// progress (since the last answer of a stall gate) reach its spec's
// stall.max_no_progress (gs; nil or 0: never). It returns the gate, nil
// when none was raised.
func MaybeStall(tx Tx, goal string, gs *specs.Goal) (*records.Gate, error) {
	if gs == nil || gs.Stall.MaxNoProgress <= 0 {
		return nil, nil
	}
	// The finished rounds since the last that made progress are among
	// the hot rounds: what the count reads.
	rounds, err := tx.HotRounds(goal)
	if err != nil {
		return nil, err
	}
	var reset time.Time
	gates, err := tx.Gates(goal)
	if err != nil {
		return nil, err
	}
	for _, g := range gates {
		if g.Reason == "stall" && g.Answer != nil && g.Answer.At.After(reset) {
			reset = g.Answer.At
		}
	}
	var finished []records.Round
	for _, r := range rounds {
		if r.Status == records.RoundFinished {
			finished = append(finished, r)
		}
	}
	slices.SortStableFunc(finished, func(a, b records.Round) int { return a.FinishedAt.Compare(b.FinishedAt) })
	if inputstate.ConsecutiveNoProgress(finished, reset) < gs.Stall.MaxNoProgress {
		return nil, nil
	}
	return RaiseStallGate(tx, goal, gs)
}

// SettleOpen enforces one round at a time per agent and goal: an open
// round of agent that still holds its todo's live lease refuses the start
// (errs.No round_open); one that lost its lease (expired, released,
// taken) is closed as abandoned — not charged — so it never stays open
// forever.
func SettleOpen(tx Tx, goal, agent string) error {
	rounds, err := tx.OpenRounds(goal, agent)
	if err != nil {
		return err
	}
	now := tx.Now()
	for _, r := range rounds {
		if r.Todo != "" {
			if t, err := tx.Todo(r.Todo); err == nil && t.Lease.LiveAt(now) && t.Lease.Round == r.ID && t.Lease.Holder == agent {
				return refused("round_open", fmt.Sprintf("agent %s already has round %s open on todo %s (lease until %s): finish it first (loopx round finish %s --outcome …)",
					agent, r.ID, r.Todo, records.RFC3339(t.Lease.ExpiresAt), r.ID), map[string]any{"round": r.ID, "todo": r.Todo})
			}
		}
		r.Status, r.FinishedAt, r.Summary = records.RoundAbandoned, now, "abandoned: its lease expired or moved before it finished"
		if err := tx.PutRound(r); err != nil {
			return err
		}
		if err := tx.AppendEvent(records.Event{Kind: "round.abandoned", Goal: goal, Actor: "loopx", Subject: r.ID,
			Message: r.Summary, Data: map[string]any{"agent": agent, "todo": r.Todo}}); err != nil {
			return err
		}
	}
	return nil
}

// Abandon closes the open round roundID as abandoned — not charged, its
// todo's lease released when the round still holds it, its agent's
// current round cleared — and audits it
// (round.abandoned, data reason = why, a refusal's code): a round whose
// agent may no longer record progress never stays open. A round already
// closed is left as it is. Errors: tx's.
func Abandon(tx Tx, roundID, why, summary string) error {
	r, err := tx.Round(roundID)
	if err != nil || r.Status != records.RoundOpen {
		return err
	}
	if r.Todo != "" {
		if t, err := tx.Todo(r.Todo); err == nil && t.Lease != nil && !t.Lease.Released && t.Lease.Round == r.ID && t.Lease.Holder == r.Agent {
			lease.Release(&t)
			t.Status = records.TodoOpen
			if err := tx.PutTodo(t); err != nil {
				return err
			}
		}
	}
	r.Status, r.FinishedAt, r.Summary = records.RoundAbandoned, tx.Now(), summary
	if err := tx.PutRound(r); err != nil {
		return err
	}
	if a, err := tx.Agent(r.Agent); err == nil && a.CurrentRound == r.ID {
		a.CurrentRound = ""
		if err := tx.PutAgent(a); err != nil {
			return err
		}
	}
	return tx.AppendEvent(records.Event{Kind: "round.abandoned", Goal: r.Goal, Actor: "loopx", Subject: r.ID,
		Message: r.Summary, Data: map[string]any{"agent": r.Agent, "todo": r.Todo, "reason": why}})
}

// Settle is what a finish asks of its caller.
type Settle struct {
	// Spec is the adopted spec (agents for the heartbeat, goals' stall
	// limits); nil when it is broken.
	Spec *specs.Spec
	// Progress asks the claim decision about a charged or done (done
	// true) finish of round r with outcome — the agent still known, a
	// monitor never done, the gates — t the round's todo while the round
	// still holds it (nil otherwise): a deny is its refusal.
	Progress func(r records.Round, t *records.Todo, outcome string, done bool) error
	// Revisions are the spec's and the policies' revisions in effect,
	// recorded on the round.
	Revisions func() (spec, policy string)
}

// CheckFinish checks a finish request alone (no state read): the summary
// and the handoff at most inert.MaxText characters, the result hash and
// the successor's agent at most inert.MaxLine, at most inert.MaxItems
// evidence records each bounded as `evidence add` bounds one (errs.Usage
// too_long),
// a successor todo's title (errs.Usage bad_title …).
func CheckFinish(req FinishRequest) error {
	if err := inert.CheckLen("the round's summary (--summary)", req.Summary, true); err != nil {
		return errs.Usagef("too_long", "%v", err)
	}
	if err := inert.CheckLen("the handoff (--handoff)", req.Handoff, true); err != nil {
		return errs.Usagef("too_long", "%v", err)
	}
	for _, f := range []struct{ what, s string }{{"the result hash (--result-hash)", req.ResultHash}, {"the successor's agent (--for)", req.NextFor}} {
		if err := inert.CheckLen(f.what, f.s, false); err != nil {
			return errs.Usagef("too_long", "%v", err)
		}
	}
	if len(req.Evidence) > inert.MaxItems {
		return errs.Usagef("too_long", "the evidence of one finish: %d records, at most %d", len(req.Evidence), inert.MaxItems)
	}
	for _, ev := range req.Evidence {
		if err := inert.CheckLen("the evidence summary", ev.Summary, true); err != nil {
			return errs.Usagef("too_long", "%v", err)
		}
		if err := inert.CheckLen("the evidence reference (--ref)", ev.Ref, false); err != nil {
			return errs.Usagef("too_long", "%v", err)
		}
	}
	if req.NextTodo != "" {
		return todos.CheckTitle(req.NextTodo)
	}
	return nil
}

// Finish settles round roundID in tx as req says: outcome, evidence,
// handoff, successor todo, the todo's status and lease release, a ledger
// entry (a charge for progress and failed, a zero entry otherwise), the
// agent's heartbeat and, at the stall limit, the stall gate. A finished
// round returns its stored receipt (Replayed), charging nothing. Errors:
// errs.Usage unknown_round, bad_outcome, bad_usage; errs.No
// not_round_agent, lease_lost, version_mismatch; s.Progress's refusal; tx's.
func Finish(tx Tx, roundID string, req FinishRequest, s Settle) (Receipt, error) {
	var rc Receipt
	now := tx.Now()
	r, err := tx.Round(roundID)
	if errors.Is(err, kernel.ErrNotFound) {
		return rc, errs.Usagef("unknown_round", "unknown round %q", roundID)
	}
	if err != nil {
		return rc, err
	}
	if req.Outcome != "" && !slices.Contains(Outcomes, req.Outcome) {
		return rc, errs.Usagef("bad_outcome", "outcome %q is not one of %v", req.Outcome, Outcomes)
	}
	if req.Tokens < 0 || req.CostUSD < 0 {
		return rc, errs.Usagef("bad_usage", "tokens and cost must not be negative (got %d tokens, %g USD)", req.Tokens, req.CostUSD)
	}
	if r.Status == records.RoundFinished {
		return StoredReceipt(tx, r)
	}
	if req.Agent != "" && req.Agent != r.Agent {
		return rc, refused("not_round_agent", fmt.Sprintf("round %s belongs to agent %s, not %s", r.ID, r.Agent, req.Agent), nil)
	}
	var t *records.Todo
	if r.Todo != "" {
		td, err := tx.Todo(r.Todo)
		if err != nil && !errors.Is(err, kernel.ErrNotFound) {
			return rc, err
		}
		if err == nil {
			t = &td
		}
	}
	outcome := req.Outcome
	if outcome == "" && req.ResultHash != "" && t != nil {
		outcome = records.OutcomeProgress
		if t.LastResultHash == req.ResultHash {
			outcome = records.OutcomeNoChange
		}
	}
	if !slices.Contains(Outcomes, outcome) {
		return rc, errs.Usagef("bad_outcome", "outcome %q is not one of %v", outcome, Outcomes)
	}
	if lost := leaseLost(r, t, now); lost != nil {
		if Charged(outcome) || req.Done {
			return rc, lost
		}
		// An uncharged outcome still closes the round (so a lost round
		// is never stuck open); the todo, now someone else's, is left alone.
		t = nil
		req.Summary = strings.TrimSpace(req.Summary + " (lease lost: todo left as it is)")
	}
	if t != nil && req.ExpectedVersion != 0 && t.Lease.Version != req.ExpectedVersion {
		return rc, refused("version_mismatch", fmt.Sprintf("todo %s: expected lease version %d, actual %d: nothing recorded", t.ID, req.ExpectedVersion, t.Lease.Version), map[string]any{"todo": t.ID, "expected": req.ExpectedVersion, "actual": t.Lease.Version})
	}
	charged := Charged(outcome)
	if charged || req.Done {
		if err := s.Progress(r, t, outcome, req.Done); err != nil {
			return rc, err
		}
	}
	entry := records.LedgerEntry{Goal: r.Goal, Round: r.ID, Agent: r.Agent, Reason: outcome}
	if charged {
		entry.Rounds, entry.Tokens, entry.CostUSD = 1, req.Tokens, req.CostUSD
		entry.ComputeSeconds = now.Sub(r.StartedAt).Seconds()
	}
	le, err := tx.AppendLedger(entry)
	if err != nil {
		return rc, err
	}
	rc.Ledger = &le
	for _, ev := range req.Evidence {
		ev.Goal, ev.Round, ev.Todo, ev.By = r.Goal, r.ID, r.Todo, r.Agent
		saved, err := tx.AddEvidence(ev)
		if err != nil {
			return rc, err
		}
		r.Evidence = append(r.Evidence, saved.ID)
	}
	if t != nil {
		lease.Release(t)
		t.Status = records.TodoOpen
		if req.Done {
			t.Status = records.TodoDone
		}
		if t.Kind == records.KindMonitor {
			t.NextDueAt = now.Add(time.Duration(t.EverySeconds) * time.Second)
			if req.ResultHash != "" {
				t.LastResultHash = req.ResultHash
			}
		}
		if err := tx.PutTodo(*t); err != nil {
			return rc, err
		}
		rc.Todo = t
	}
	if req.Handoff != "" || req.NextTodo != "" {
		h, err := tx.AddHandoff(records.Handoff{Goal: r.Goal, Round: r.ID, Agent: r.Agent, Summary: req.Handoff, NextTodo: req.NextTodo, For: req.NextFor})
		if err != nil {
			return rc, err
		}
		r.Handoff, rc.Handoff = h.ID, &h
	}
	if req.NextTodo != "" {
		nt := records.Todo{Goal: r.Goal, Title: req.NextTodo, Priority: 2, CreatedBy: r.Agent}
		if t != nil {
			nt.Priority = t.Priority
		}
		if req.NextFor != "" {
			nt.Labels = []string{"for:" + req.NextFor}
		}
		saved, err := tx.AddTodo(nt)
		if err != nil {
			return rc, err
		}
		rc.NextTodo = &saved
	}
	spec, policy := s.Revisions()
	r.Status, r.FinishedAt, r.Outcome, r.Summary = records.RoundFinished, now, outcome, req.Summary
	r.Tokens, r.CostUSD, r.Charged = req.Tokens, req.CostUSD, charged
	r.GoalRevAfter, r.SpecRev, r.PolicyRev, r.ResultHash = tx.Revision(), spec, policy, req.ResultHash
	if err := tx.PutRound(r); err != nil {
		return rc, err
	}
	if err := tx.AppendEvent(records.Event{Kind: "round.finished", Goal: r.Goal, Actor: r.Agent, Subject: r.ID, Message: req.Summary,
		Data: map[string]any{"outcome": outcome, "charged": charged, "todo": r.Todo, "tokens": req.Tokens, "cost_usd": req.CostUSD}}); err != nil {
		return rc, err
	}
	if err := Heartbeat(tx, s.Spec, r.Agent, ""); err != nil {
		return rc, err
	}
	rc.Round, rc.Charged = r, charged
	rc.Gate, err = MaybeStall(tx, r.Goal, inputstate.Builder{Spec: s.Spec}.GoalSpec(r.Goal))
	return rc, err
}

// leaseLost is the lease_lost refusal of finishing round r whose todo t
// (nil: none or gone) it no longer holds live at now, nil when it does.
func leaseLost(r records.Round, t *records.Todo, now time.Time) *errs.Error {
	switch {
	case t != nil && (t.Lease == nil || t.Lease.Released || t.Lease.Holder != r.Agent || t.Lease.Round != r.ID):
		holder := "nobody (released)"
		if t.Lease != nil && !t.Lease.Released {
			holder = t.Lease.Holder
			if t.Lease.Holder == r.Agent {
				holder += " in round " + t.Lease.Round
			}
		}
		return refused("lease_lost", fmt.Sprintf("round %s no longer holds todo %s (now held by %s): nothing recorded", r.ID, t.ID, holder), nil)
	case t != nil && !t.Lease.LiveAt(now):
		return refused("lease_lost", fmt.Sprintf("round %s's lease on todo %s expired at %s: nothing recorded (renew with loopx todo renew)", r.ID, t.ID, records.RFC3339(t.Lease.ExpiresAt)), map[string]any{"todo": t.ID, "expires_at": records.RFC3339(t.Lease.ExpiresAt), "version": t.Lease.Version})
	}
	return nil
}

// StoredReceipt is the receipt of the finished round r as stored: its
// ledger entry, todo, handoff and successor todo, Replayed set. The
// successor is the todo its finish added: of r's goal, by r's agent, with
// the handoff's next todo as title, the first such one after the round's
// ledger entry (the finish appends the entry, then adds the successor, in
// one transaction and one sequence).
func StoredReceipt(tx Tx, r records.Round) (Receipt, error) {
	rc := Receipt{Round: r, Charged: r.Charged, Replayed: true}
	ledger, err := tx.Ledger(r.Goal)
	if err != nil {
		return rc, err
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
			return rc, err
		}
		for i := range hs {
			if hs[i].ID == r.Handoff {
				rc.Handoff = &hs[i]
			}
		}
	}
	if rc.Handoff == nil || rc.Handoff.NextTodo == "" || rc.Ledger == nil {
		return rc, nil
	}
	todos, err := tx.Todos(r.Goal)
	if err != nil {
		return rc, err
	}
	for i, t := range todos {
		if t.Seq > rc.Ledger.Seq && t.CreatedBy == r.Agent && t.Title == rc.Handoff.NextTodo && (rc.NextTodo == nil || t.Seq < rc.NextTodo.Seq) {
			rc.NextTodo = &todos[i]
		}
	}
	return rc, nil
}

// refused is an errs.No error with code, message and the refusal's facts.
func refused(code, message string, data map[string]any) *errs.Error {
	e := errs.New(errs.No, code, message)
	if data != nil {
		e.Data = data
	}
	return e
}
