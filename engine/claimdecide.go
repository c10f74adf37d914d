package engine

import (
	"context"
	"errors"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/claimorder"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/audit"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// claimDecision is a claim decision taken inside a transaction, with the
// input it saw, to be logged after the commit.
type claimDecision struct {
	d   decision.Decision
	in  input.Input
	now time.Time
}

// decideClaim evaluates data.loopx.claim.decision inside tx for agent on
// goal: the request cf, over the same snapshot shape as should_run with
// the goal, the agent and the open gates; the todos only when a user
// policy may read them (the built-in claim policy reads the claimed todo's
// own facts, cf.Todo; quota and progress are left empty: reading the whole
// ledger is not a claim's business); for the gate-only ops finish, done
// and evidence only the goal, the agent and the open gates.
func (e *Engine) decideClaim(ctx context.Context, tx *kernel.Tx, goal, agent string, cf input.ClaimFacts) (claimDecision, error) {
	now := tx.Now()
	req := Request{Query: query.Claim, Goal: goal, Agent: agent}
	in := input.Input{Query: query.Claim.Name, Now: records.RFC3339(now), Goal: goal, Agent: agent, Claim: &cf}
	if e.rules.specErr != nil {
		in.Health.Spec = errs.Summary(e.rules.specErr)
	}
	var err error
	switch cf.Op {
	case "finish", "done", "settle", "evidence":
		in.State, err = e.rules.facts().Gates(tx, goal, agent)
	default:
		in.State, err = e.rules.facts().Of(tx, goal, agent, now, inputstate.Need{Todos: e.userReads()})
	}
	if err != nil {
		return claimDecision{}, err
	}
	d := e.evaluate(ctx, req, in)
	e.finishDecision(&d, req, in)
	return claimDecision{d: d, in: in, now: now}, nil
}

// logClaim appends a claim decision taken in a transaction to the decision
// log; while this engine holds the store, after Release (decisionlog.Log.Later).
func (e *Engine) logClaim(cd claimDecision) {
	if write := e.sess.log.Append; cd.d.DecisionID != "" {
		if e.sess.store != nil {
			write = e.sess.log.Later
		}
		_ = e.logDecision(write, cd.d, cd.in, cd.now)
	}
}

// claimTodoFacts gathers the facts of t for a claim query across the
// spec's goals (inputstate.ClaimTodo).
func (e *Engine) claimTodoFacts(tx *kernel.Tx, t records.Todo, agent string) (*input.ClaimTodo, error) {
	return inputstate.ClaimTodo(tx, e.GoalIDs(), t, agent)
}

// Refusal is the error of a mutation d denied (decision.Refusal); the CLI
// uses it for a preview's deny.
func (e *Engine) Refusal(d decision.Decision) error {
	user := len(d.Reasons) > 0 && d.Reasons[0].Code == "policy_error" && IsUserPolicyError(e.PolicyErr())
	return decision.Refusal(d, user)
}

// errUnprepared stops a transaction that needs a query not prepared yet:
// updatePrepared rolls it back, prepares the query outside the lock and
// runs the transaction again.
var errUnprepared = errors.New("engine: query not prepared")

// updatePrepared is update for a mutation that decides q only in some
// states (a progress check when a gate is open): fn returns errUnprepared
// when it needs q unprepared, and the transaction is then run again
// after releasing the store and preparing q (unless Prepare did first).
func (e *Engine) updatePrepared(ctx context.Context, q query.Query, fn func(tx *kernel.Tx) error) error {
	e.Prepare(ctx, true, q)
	err := e.update(fn)
	if errors.Is(err, errUnprepared) {
		if err := e.Release(); err != nil {
			return err
		}
		e.rules.prepareAll(ctx, q)
		err = e.update(fn)
	}
	return err
}

// checkProgress applies the claim decision's gate rules to a progress op
// (finish, done, evidence) inside tx when goal has an open gate (none open:
// nothing to check). A deny is returned as the refusal.
func (e *Engine) checkProgress(ctx context.Context, tx *kernel.Tx, goal, agent string, cf input.ClaimFacts) (claimDecision, error) {
	gates, err := e.rules.facts().OpenGates(tx, goal)
	if err != nil || len(gates) == 0 {
		return claimDecision{}, err
	}
	if !e.rules.prep.Has(query.Claim.Name) {
		return claimDecision{}, errUnprepared
	}
	cd, err := e.decideClaim(ctx, tx, goal, agent, cf)
	if err != nil {
		return cd, err
	}
	if !cd.d.Allow {
		return cd, e.Refusal(cd.d)
	}
	return cd, nil
}

// checkSettle is checkProgress for an agent changing a todo's status
// (byAgent): the claim decision is always asked, gates or not, since it
// also refuses a todo another agent leases (data.loopx.claim
// leased_by_other); a human's change asks only when gates are open.
func (e *Engine) checkSettle(ctx context.Context, tx *kernel.Tx, goal, agent string, byAgent bool, cf input.ClaimFacts) (claimDecision, error) {
	if !byAgent || agent == "" {
		return e.checkProgress(ctx, tx, goal, agent, cf)
	}
	if !e.rules.prep.Has(query.Claim.Name) {
		return claimDecision{}, errUnprepared
	}
	cd, err := e.decideClaim(ctx, tx, goal, agent, cf)
	if err != nil {
		return cd, err
	}
	if !cd.d.Allow {
		return cd, e.Refusal(cd.d)
	}
	return cd, nil
}

// recordViolation appends a gate_violation event in its own transaction,
// after the refused mutation rolled back, so the attempt stays visible.
func (e *Engine) recordViolation(goal, actor string, err error, data map[string]any) {
	if _, ok := decision.ViolatedGate(err); ok {
		_ = e.update(func(tx *kernel.Tx) error { _, err := audit.Violation(tx, goal, actor, err, data); return err })
	}
}

// Prepare compiles queries while the store is not open (a no-op once it
// is): a command that opens it before its mutation (ActAs reads it) calls
// it first, so that no compile runs under the state lock. With gated, only
// when the read model shows an open gate or cannot tell (finish, evidence
// add and a todo's status decide claim only then). The identity check
// those commands make next (ActAs) is compiled meanwhile, in the
// background.
func (e *Engine) Prepare(ctx context.Context, gated bool, queries ...query.Query) {
	PrepareActing()
	claimorder.Prepare() // the read model written after the unlock needs it
	if e.sess.store == nil && (!gated || e.mayHaveOpenGate()) {
		e.rules.prepareAll(ctx, queries...)
	}
}

// mayHaveOpenGate reports whether the read model shows an open gate, or
// cannot tell (none is usable).
func (e *Engine) mayHaveOpenGate() bool {
	rm := e.sess.loadReadModel(e.Now())
	return rm == nil || rm.AnyOpenGate()
}

// DecideClaim decides the claim query for p over the current state, as
// the mutation would inside its transaction, without changing anything
// (spec todos and gates are materialised first, as before any mutation);
// the decision is logged (one that cannot be is a deny: unrecorded, with
// the error). Errors: errs.Usage missing_todo, unknown_todo,
// missing_agent, bad_op, missing_from; store errors; the decision log's.
func (e *Engine) DecideClaim(ctx context.Context, p lease.Preview) (decision.Decision, error) {
	p, err := p.Check()
	if err != nil {
		return decision.Decision{}, err
	}
	e.rules.prepareAll(ctx, query.Claim)
	var cd claimDecision
	err = e.update(func(tx *kernel.Tx) error {
		t, err := lease.Find(tx.Todo, p.Todo)
		if err != nil {
			return err
		}
		facts, err := e.claimTodoFacts(tx, t, p.Agent)
		if err != nil {
			return err
		}
		cd, err = e.decideClaim(ctx, tx, t.Goal, p.Agent, input.ClaimFacts{Op: p.Op, From: p.From, Todo: facts})
		return err
	})
	if err == nil && cd.d.DecisionID != "" {
		if lerr := e.logDecision(e.sess.log.Append, cd.d, cd.in, cd.now); lerr != nil {
			link, re := audit.LinkRefusal(lerr)
			e.AuditRefusal("fs.link_refused", "writing the decision log", "loopx", link, re)
			return unrecorded(cd.d, lerr), lerr
		}
		return cd.d, nil
	}
	e.logClaim(cd)
	return failClosed(cd.d, query.Claim, err), err
}

// failClosed is d, or when a preview could not decide because of a store
// error, a deny (store_error) saying so.
func failClosed(d decision.Decision, q query.Query, err error) decision.Decision {
	if err == nil || errs.IsKind(err, errs.Usage) || d.Verdict != "" {
		return d
	}
	d = decision.Deny("store_error", "store unusable: "+err.Error(), q.Entry)
	d.Query = q.Name
	return d
}
