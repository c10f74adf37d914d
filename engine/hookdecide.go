package engine

import (
	"context"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/open-policy-agent/opa/v1/rego"
)

// hookRule is the entry rule a PreToolUse hook evaluates: the acting
// decision and the permission decision in one evaluation.
const hookRule = "data.loopx.permission.hook"

// WarmHook starts compiling the hook's built-in policy in the background
// (rulebook.Warm), for a PreToolUse hook about to decide.
func WarmHook() { rulebook.Warm(hookRule) }

// HookPermission is ActAs (act, whose Agent is the agent the hook is
// given, "" for none) then Permission for a PreToolUse hook, in one policy
// evaluation (data.loopx.permission.hook): the caller's identity and the
// tool call are judged together. The permission decision is for the agent
// the act allows, else fallback (the host's default agent) when it allows
// none. It returns that agent and the decision; the error is ActAs's
// refusal (no decision is made then) or Permission's.
//
// An act allowed as an agent the hook did not name (the one its ancestry
// carries) is decided again for that agent: a second evaluation. So is a
// hook evaluation that gave no acting decision (a policy error or timeout
// of a user policy): the act is then judged by ActAs, built-in rules only,
// and the permission decision is the hook's deny.
func (e *Engine) HookPermission(ctx context.Context, act trust.ActRequest, fallback string, call toolcall.Call) (string, decision.Decision, error) {
	facts := e.actingFacts(act)
	agent := act.Agent
	if agent == "" {
		agent = fallback
	}
	pr := toolcall.Read(e.root, e.loopxStateDir(), call)
	e.SeedSpecTodos(act.Goal)
	d, acting, err := e.decide(ctx, Request{Query: query.Permission, Goal: act.Goal, Agent: agent, Permission: pr, acting: facts})
	var as string
	var refused error
	if acting != nil {
		as, refused = e.actedAs(act, facts, *acting)
	} else {
		as, refused = e.ActAs(ctx, act)
	}
	if refused != nil {
		return "", decision.Decision{}, refused
	}
	if as == "" {
		as = fallback
	}
	if as != agent {
		d, err = e.Permission(ctx, act.Goal, as, call)
		return as, d, err
	}
	e.auditPermission(act.Goal, agent, pr, call, d, err)
	return agent, d, err
}

// evalHook evaluates pq, the hook entry rule, on in: the permission
// decision of q (the zero Decision when the rule leaves it out) and the
// acting decision. A failure is the permission decision's deny, with no
// acting decision.
func (e *Engine) evalHook(ctx context.Context, pq *rego.PreparedEvalQuery, q query.Query, in input.Input) (decision.Decision, *decision.Decision) {
	iv, err := input.Value(in)
	if err != nil {
		return decision.Deny("policy_error", "policy input: "+err.Error(), q.Entry), nil
	}
	v, fail := e.evalValue(ctx, pq, q.Entry, iv)
	if fail != nil {
		return *fail, nil
	}
	m, _ := v.(map[string]any)
	a, ok := m["acting"]
	if !ok {
		return decision.Deny("policy_undefined", hookRule+" gave no acting decision", q.Entry), nil
	}
	acting := fromValue(a, actingRule, query.GateAnswer)
	dv, ok := m["decision"]
	if !ok {
		return decision.Decision{}, &acting
	}
	return fromValue(dv, q.Entry, q), &acting
}
