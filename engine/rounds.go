package engine

import (
	"context"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// StartRound decides should_run for (goal, agent) and, on "run", claims the
// selected todo and opens a round in one transaction. At the stall limit it
// raises the stall gate. Errors: errs.Usage for an unknown goal, the
// spec's errors, store errors.
func (e *Engine) StartRound(ctx context.Context, goal, agent string) (rounds.StartResult, error) {
	var res rounds.StartResult
	if err := e.RequireGoal(goal); err != nil {
		return res, err
	}
	// Prepare both decisions before the store is opened; then hold the
	// store (and its lock) from the decision to the claim, so that no other
	// process claims the selected todo in between; an unusable store is
	// reported by Decide (deny).
	e.rules.prepareAll(ctx, query.ShouldRun, query.Claim)
	_, _ = e.Store()
	e.SeedSpecTodos(goal)
	d, err := e.Decide(ctx, Request{Query: query.ShouldRun, Goal: goal, Agent: agent})
	res.Decision = d
	if err != nil {
		return res, err
	}
	if d.Verdict == "wait_human" && d.HasReason("stall_limit") {
		err := e.update(func(tx *kernel.Tx) error {
			g, err := rounds.RaiseStallGate(tx, goal, e.rules.facts().GoalSpec(goal))
			res.Gate = g
			return err
		})
		return res, err
	}
	if d.Verdict != "run" || d.Todo == nil {
		if err := decision.OpenGate(d, "round start refused: "); err != nil {
			e.recordViolation(goal, agent, err, map[string]any{"mutation": "round.start"})
		}
		return res, nil
	}
	var cd claimDecision
	err = e.update(func(tx *kernel.Tx) error {
		cd = claimDecision{}
		if err := rounds.SettleOpen(tx, goal, agent); err != nil {
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
		if cd, err = e.decideClaim(ctx, tx, goal, agent, input.ClaimFacts{Op: "round_start", Todo: facts}); err != nil {
			return err
		}
		if !cd.d.Allow {
			return e.Refusal(cd.d)
		}
		r, t, err := rounds.Open(tx, e.rules.facts().Spec, goal, t, agent, d.DecisionID, e.runner, e.roundLeaseTTL())
		if err != nil {
			return err
		}
		res.Round, res.Todo = &r, &t
		return nil
	})
	e.logClaim(cd)
	e.recordViolation(goal, agent, err, map[string]any{"mutation": "round.start", "todo": d.Todo.ID})
	return res, err
}

// FinishRound settles a round in ONE transaction: outcome, evidence,
// handoff, todo status, lease release, ledger entry (charge for progress
// and failed, a zero entry otherwise) and, at the stall limit, the stall
// gate. Errors: errs.Usage (unknown round, bad outcome, a NextTodo title
// with a control character: bad_title), errs.No
// (lease_lost, not_round_agent, unknown_agent: the agent is no longer
// known, and its round is then closed as abandoned, audited).
func (e *Engine) FinishRound(ctx context.Context, roundID string, req rounds.FinishRequest) (rounds.Receipt, error) {
	var rc rounds.Receipt
	if err := rounds.CheckFinish(req); err != nil {
		return rc, err
	}
	e.Prepare(ctx, !FinishDecidesClaim(req), query.Claim) // a no-op once the store is open
	var cd claimDecision
	err := e.updatePrepared(ctx, query.Claim, func(tx *kernel.Tx) error {
		cd = claimDecision{}
		var err error
		rc, err = rounds.Finish(tx, roundID, req, rounds.Settle{Spec: e.rules.facts().Spec, Revisions: e.rules.revisions,
			Progress: func(r records.Round, t *records.Todo, outcome string, done bool) error {
				var err error
				cf := input.ClaimFacts{Op: "finish", Round: r.ID, Outcome: outcome, Done: done}
				if t != nil {
					if cf.Todo, err = e.claimTodoFacts(tx, *t, r.Agent); err != nil {
						return err
					}
				} else if r.Todo != "" {
					cf.Todo = &input.ClaimTodo{TodoFacts: input.TodoFacts{ID: r.Todo, DepsOpen: []string{}, Labels: []string{}}, Goal: r.Goal}
				}
				// Asked on every charged or done finish, gates or not:
				// it also refuses an agent no longer known.
				cd, err = e.checkSettle(ctx, tx, r.Goal, r.Agent, true, cf)
				return err
			}})
		return err
	})
	e.logClaim(cd)
	if re := errs.As(err); re != nil && (re.Code == "unknown_agent" || re.Code == "agent_not_on_goal") {
		// The agent may no longer record progress: its round is closed
		// as abandoned (audited), never left open on its todo.
		if aerr := e.update(func(tx *kernel.Tx) error {
			return rounds.Abandon(tx, roundID, re.Code, "abandoned: its agent may no longer record progress ("+re.Message+")")
		}); aerr != nil {
			return rc, aerr
		}
	}
	if _, ok := decision.ViolatedGate(err); ok {
		r, _ := e.Round(roundID)
		e.recordViolation(r.Goal, r.Agent, err, map[string]any{"mutation": "round.finish", "round": roundID, "outcome": req.Outcome})
	}
	return rc, err
}

// FinishDecidesClaim reports whether finishing a round with req decides
// the claim query whatever the gates: a charged outcome or --done (it
// also refuses an agent no longer known); other finishes decide it only
// under an open gate. A caller that opens the store before FinishRound
// (its identity check) prepares the query first when this is true
// (Prepare, not gated).
func FinishDecidesClaim(req rounds.FinishRequest) bool {
	return rounds.Charged(req.Outcome) || req.Done
}

// roundLeaseTTL is the lease a round takes: Options.LeaseTTL or
// DefaultLeaseTTL.
func (e *Engine) roundLeaseTTL() time.Duration {
	if e.leaseTTL > 0 {
		return e.leaseTTL
	}
	return rounds.DefaultLeaseTTL
}

// Round returns one round. Errors: errs.Usage unknown_round.
func (e *Engine) Round(id string) (records.Round, error) {
	var r records.Round
	err := e.view(func(tx *kernel.Tx) error {
		var err error
		r, err = tx.Round(id)
		if IsNotFound(err) {
			return Usagef("unknown_round", "unknown round %q", id)
		}
		return err
	})
	return r, err
}
