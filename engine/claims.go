package engine

import (
	"context"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// ClaimTodo takes a lease on a todo for an agent in ONE transaction: a
// compare-and-swap against every other claimant, in this process or
// another. On success the lease has version +1 (never reset),
// epoch +1 (a new holder) and an absolute expires_at = now + TTL; the todo
// is "claimed"; a todo.claimed event is appended and the agent's heartbeat
// updated. Whether the agent may hold the todo is the claim decision
// (data.loopx.claim.decision, op "claim"), prepared before the store is
// opened and evaluated inside the transaction, then logged. Every refusal
// changes nothing (a gate_violation is audited after the rollback):
//   - errs.Usage: bad_ttl, missing_agent, unknown_todo, unknown_agent
//     (the decision's reason, data.loopx.lib.agent_known),
//     idempotency_key_reused (the key names another agent's lease), and
//     policy_error for a user policy that does not compile;
//   - errs.No: the decision's first reason — already_claimed (Data:
//     holder, expires_at, version, epoch), todo_done / todo_blocked /
//     todo_cancelled, not_agent_work (gate and action todos),
//     agent_not_on_goal, monitor_only, role_mismatch, for_other_agent,
//     depends_on_open (Data: open), gate_violation, scope_conflict (Data:
//     todo, holder, scope, other_scope), a user policy's deny — and
//     idempotency_key_spent (the key's lease was released or expired).
//
// A claim of a lease the agent already holds returns it unchanged
// (Replayed). An expired lease is claimable by anyone.
func (e *Engine) ClaimTodo(req lease.ClaimRequest) (lease.Result, error) {
	return e.ClaimTodoContext(context.Background(), req)
}

// ClaimTodoContext is ClaimTodo with a context bounding the decision.
func (e *Engine) ClaimTodoContext(ctx context.Context, req lease.ClaimRequest) (lease.Result, error) {
	var res lease.Result
	ttl, err := req.Check()
	if err != nil {
		return res, err
	}
	var goal string
	var cd claimDecision
	e.rules.prepareAll(ctx, query.Claim)
	err = e.update(func(tx *kernel.Tx) error {
		res, cd = lease.Result{}, claimDecision{}
		t, err := lease.Find(tx.Todo, req.Todo)
		if err != nil {
			return err
		}
		goal = t.Goal
		now := tx.Now()
		for _, g := range e.GoalIDs() {
			if req.IdempotencyKey == "" {
				break
			}
			others, err := tx.Todos(g)
			if err == nil {
				err = lease.KeyElsewhere(others, t.ID, req.IdempotencyKey)
			}
			if err != nil {
				return err
			}
		}
		if retried, err := lease.Retried(t.Lease, t.ID, req.Agent, req.IdempotencyKey, ttl, now); err != nil || retried {
			if retried {
				res = lease.Result{Todo: t, Lease: *t.Lease, Replayed: true}
			}
			return err
		}
		facts, err := e.claimTodoFacts(tx, t, req.Agent)
		if err != nil {
			return err
		}
		if cd, err = e.decideClaim(ctx, tx, t.Goal, req.Agent, input.ClaimFacts{Op: "claim", Todo: facts}); err != nil {
			return err
		}
		if !cd.d.Allow {
			return e.claimRefusal(cd.d, req.Agent)
		}
		if l := t.Lease; l.LiveAt(now) && l.Holder == req.Agent {
			res = lease.Result{Todo: t, Lease: *l, Replayed: true}
			return nil
		}
		prev := t.Lease
		lease.Claim(&t, req.Agent, "", now, ttl)
		t.Lease.TTLSeconds, t.Lease.IdempotencyKey = int64(ttl/time.Second), req.IdempotencyKey
		data := lease.Data(t.Lease)
		if prev != nil {
			data["previous_holder"] = prev.Holder
			data["previous_version"] = prev.Version
			if !prev.Released {
				data["previous_expired_at"] = records.RFC3339(prev.ExpiresAt)
			}
		}
		if err := e.putLease(tx, t, "todo.claimed", req.Agent, data); err != nil {
			return err
		}
		res = lease.Result{Todo: t, Lease: *t.Lease, Previous: prev}
		return nil
	})
	e.logClaim(cd)
	e.auditRefusal(goal, req.Agent, err, "todo.claim", req.Todo)
	return res, err
}

// RenewLease extends the agent's live lease to now + TTL (default: the
// lease's own TTL), version +1, same epoch. Errors: errs.Usage
// (bad_ttl, missing_expected_version, unknown_todo); errs.No
// version_mismatch (Data: expected, actual) or lease_lost (the lease was
// released, expired or is another agent's). Refusals change nothing.
func (e *Engine) RenewLease(req lease.Request) (lease.Result, error) {
	return e.changeLease(req, "renew")
}

// ReleaseLease ends the agent's lease, leaving a tombstone (Released,
// version +1) and reopening the todo; the todo is claimable at once. A
// retried release (the lease is this agent's tombstone at exactly
// ExpectedVersion+1) returns it unchanged (Replayed). The holder may
// release its lease after it expired, unless someone claimed it since.
// Errors as RenewLease.
func (e *Engine) ReleaseLease(req lease.Request) (lease.Result, error) {
	return e.changeLease(req, "release")
}

// TransferLease hands the agent's live lease to req.To: version +1, epoch
// +1, a fresh expires_at (TTL default: the lease's own). The new holder
// must fit the todo like a claimant (known, on the goal, role, mode, no
// blocking gate, no scope conflict). Errors as RenewLease, plus
// errs.Usage unknown_agent / same_agent / missing_to and the claim
// refusals for the new holder.
func (e *Engine) TransferLease(req lease.Request) (lease.Result, error) {
	return e.changeLease(req, "transfer")
}

func (e *Engine) changeLease(req lease.Request, op string) (lease.Result, error) {
	var res lease.Result
	if err := req.Check(op); err != nil {
		return res, err
	}
	var goal string
	var cd claimDecision
	if op == "transfer" || op == "renew" {
		e.rules.prepareAll(context.Background(), query.Claim)
	}
	err := e.update(func(tx *kernel.Tx) error {
		res, cd = lease.Result{}, claimDecision{}
		t, err := lease.Find(tx.Todo, req.Todo)
		if err != nil {
			return err
		}
		goal = t.Goal
		now := tx.Now()
		l := t.Lease
		if op == "release" && l != nil && l.Released && l.Holder == req.Agent && l.Version == req.ExpectedVersion+1 {
			res = lease.Result{Todo: t, Lease: *l, Replayed: true}
			return nil
		}
		if err := lease.CheckHeld(t, req.Agent, req.ExpectedVersion, now, op == "release"); err != nil {
			return err
		}
		prev := *l
		ttl := lease.TTL(l, req.TTL, rounds.DefaultLeaseTTL)
		var kind string
		var data map[string]any
		switch op {
		case "renew":
			if cd, err = e.decideLease(tx, t, req.Agent, input.ClaimFacts{Op: "renew"}); err != nil {
				return err
			}
			nl := lease.Renew(*l, now, ttl)
			t.Lease, kind = &nl, "todo.lease_renewed"
			data = lease.Data(&nl)
		case "release":
			lease.Release(&t)
			if t.Status == records.TodoClaimed {
				t.Status = records.TodoOpen
			}
			kind = "todo.released"
			data = map[string]any{"version": t.Lease.Version, "epoch": t.Lease.Epoch}
		case "transfer":
			if cd, err = e.decideLease(tx, t, req.To, input.ClaimFacts{Op: "transfer", From: req.Agent}); err != nil {
				return err
			}
			nl := lease.Transfer(*l, req.To, now, ttl)
			t.Lease = &nl
			kind = "todo.transferred"
			data = lease.Data(t.Lease)
			data["from"], data["to"] = req.Agent, req.To
		}
		data["previous_version"] = prev.Version
		if err := e.putLease(tx, t, kind, req.Agent, data); err != nil {
			return err
		}
		if op == "transfer" {
			if err := rounds.Touch(tx, e.rules.facts().Spec, req.To); err != nil {
				return err
			}
		}
		res = lease.Result{Todo: t, Lease: *t.Lease, Previous: &prev}
		return nil
	})
	e.logClaim(cd)
	e.auditRefusal(goal, req.Agent, err, "todo."+op, req.Todo)
	return res, err
}

// decideLease decides cf (a transfer to agent, agent's renew) on t inside
// tx (data.loopx.claim.decision): its refusal when it denies.
func (e *Engine) decideLease(tx *kernel.Tx, t records.Todo, agent string, cf input.ClaimFacts) (claimDecision, error) {
	facts, err := e.claimTodoFacts(tx, t, agent)
	if err != nil {
		return claimDecision{}, err
	}
	cf.Todo = facts
	cd, err := e.decideClaim(context.Background(), tx, t.Goal, agent, cf)
	if err == nil && !cd.d.Allow {
		err = e.claimRefusal(cd.d, agent)
	}
	return cd, err
}

// claimRefusal is the error of the claim decision d that refused agent:
// when the rule found the agent unknown to the rules in effect and loopx/
// declares it in a change not adopted yet, the refusal says so and names
// loopx adopt (the decision stays the rule's).
func (e *Engine) claimRefusal(d decision.Decision, agent string) error {
	if len(d.Reasons) > 0 && d.Reasons[0].Code == "unknown_agent" {
		if pe := e.pendingAgent(agent); pe != nil {
			return pe
		}
	}
	return e.Refusal(d)
}

// putLease stores t with its changed lease and audits the change.
func (e *Engine) putLease(tx *kernel.Tx, t records.Todo, kind, actor string, data map[string]any) error {
	if err := tx.PutTodo(t); err != nil {
		return err
	}
	if err := tx.AppendEvent(records.Event{Kind: kind, Goal: t.Goal, Actor: actor, Subject: t.ID, Message: t.Title, Data: data}); err != nil {
		return err
	}
	return rounds.Touch(tx, e.rules.facts().Spec, actor)
}

// auditRefusal records a gate_violation refusal after its rollback.
func (e *Engine) auditRefusal(goal, agent string, err error, mutation, todo string) {
	e.recordViolation(goal, agent, err, map[string]any{"mutation": mutation, "todo": todo})
}

// unknownAgent is the unknown_agent usage error for agent; when loopx/
// declares it in a change not adopted yet, it says so and names
// `loopx adopt`.
func (e *Engine) unknownAgent(agent string) error {
	if pe := e.pendingAgent(agent); pe != nil {
		return pe
	}
	return Usagef("unknown_agent", "unknown agent %s: declare it in the spec or run loopx agent register", agent)
}

// pendingAgent is the unknown_agent error for an agent that loopx/
// declares in a change not adopted yet, else nil.
func (e *Engine) pendingAgent(agent string) error {
	if e.pendingDeclares(func(sp *specs.Spec) bool { _, ok := sp.Agents[agent]; return ok }) {
		return Usagef("unknown_agent", "unknown agent %q: loopx/ declares it, but that change is not adopted yet; a human runs `loopx adopt` to adopt it", agent)
	}
	return nil
}
