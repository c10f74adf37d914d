package engine

import (
	"context"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/mutating/audit"
	"github.com/loopx-dev/loopx/engine/mutating/spoolimport"
	"github.com/loopx-dev/loopx/kernel"
)

// Permission decides the permission query (data.loopx.permission.decision)
// for agent on goal: "allow" (a goals.<g>.scope.grant covers the
// call), "defer" (no grant, no objection: the host decides), "ask" or
// "deny", with reasons, logged like every decision. Before the policy runs
// req is normalised (toolcall.Read: paths made facts, the command read,
// actions derived).
//
// The returned error is Decide's: non-nil only for an unusable store or
// decision log, and the decision is then a valid deny.
func (e *Engine) Permission(ctx context.Context, goal, agent string, req toolcall.Call) (decision.Decision, error) {
	pr := toolcall.Read(e.root, e.loopxStateDir(), req)
	e.SeedSpecTodos(goal)
	d, err := e.Decide(ctx, Request{Query: query.Permission, Goal: goal, Agent: agent, Permission: pr})
	e.auditPermission(goal, agent, pr, req, d, err)
	return d, err
}

// auditPermission audits d, the permission decision for req, when it
// blocks the call (auditDenial) and was decided (err nil) on a goal of
// the spec.
func (e *Engine) auditPermission(goal, agent string, pr *input.PermissionRequest, req toolcall.Call, d decision.Decision, err error) {
	if (d.Verdict == "deny" || (d.Verdict == "ask" && req.AskBlocks)) && !req.Question && err == nil && e.rules.facts().GoalSpec(goal) != nil {
		e.auditDenial(goal, agent, pr, d)
	}
}

// auditDenial records a denied tool call (a deny, or an ask the host turns
// into a block) as a permission.denied event, so that an agent whose host
// ignores the answer still shows in `loopx events` (the decision log has
// the full decision). It never waits for the state lock: it appends one
// line to the denial spool (.loopx/spool/denials.jsonl), which the next
// writer imports in its transaction (spool.go). Allows, defers and asks a
// host can ask are not audited: they are the hot path of every tool call.
// When the spool cannot be written (a read-only or full disk), the event
// is written to the store directly instead, waiting for the lock.
func (e *Engine) auditDenial(goal, agent string, pr *input.PermissionRequest, d decision.Decision) {
	rec := audit.Denial(goal, agent, pr, d)
	rec.At = e.Now()
	if err := hosts.AppendDenial(e.spoolDir(), rec); err != nil {
		_ = e.update(func(tx *kernel.Tx) error { return spoolimport.Unspooled(tx, rec, err) })
	}
}
