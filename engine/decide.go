package engine

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/loopx-dev/loopx/engine/mutating/audit"
	"github.com/loopx-dev/loopx/kernel/records"

	"github.com/loopx-dev/loopx/engine/deciding/claimorder"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/oklog/ulid/v2"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// Request is a query to decide.
type Request struct {
	// Query is the query asked (query.ShouldRun, …).
	Query query.Query
	Goal  string
	Agent string
	// Permission is set for permission queries.
	Permission *input.PermissionRequest
	// acting, set by HookPermission on a permission query, asks in the
	// same evaluation whether the caller may act as Agent (input.answer:
	// data.loopx.permission.hook).
	acting *input.AnswerFacts
}

// Decide answers req with the built-in policy over a fresh snapshot and
// appends the decision to the decision log; it writes no state (the spec's
// todos are seeded first by the caller: SeedSpecTodos). It fails closed: when the
// store, spec or policy is unusable, or the policy's result is undefined or
// malformed, the decision is a deny with code store_error, spec_error,
// policy_error or policy_undefined. The returned error is non-nil only for
// an unusable store (kernel.StoreError, lock timeout) — the decision is
// still a valid deny then — or a failure to write the decision log, and
// the decision is a deny then too (unrecorded: code decision_log_error):
// a decision without its record is never shown or acted on as given.
func (e *Engine) Decide(ctx context.Context, req Request) (decision.Decision, error) {
	d, _, err := e.decide(ctx, req)
	return d, err
}

// decide is Decide; with req.acting it evaluates data.loopx.permission.hook
// instead and also returns its acting decision (nil when the evaluation
// gave none: a policy error, undefined). Then, when the act is refused or
// acts as an agent other than req.Agent, the returned decision is the zero
// Decision, unlogged (the caller refuses, or decides for that agent).
func (e *Engine) decide(ctx context.Context, req Request) (decision.Decision, *decision.Decision, error) {
	now := e.Now()
	// Prepare the policy (CPU-bound, most of a cold decision) while the
	// input is read from disk. The goroutine prepares over the rules in
	// effect now (a Rules does not change; reading the input may replace
	// the engine's, and evaluate then prepares over those); the user
	// modules are loaded first, so that neither goroutine loads them.
	rules := e.rules
	_, _ = rules.UserModules()
	prepared := make(chan struct{})
	go func() {
		defer close(prepared)
		_, _ = rules.prepared(ctx, req.entry())
	}()
	rm := e.sess.loadReadModel(now)
	windows := claimorder.Windows(req.Query, e.userReads())
	in, partial, storeErr := e.inputFrom(rm, req, now, windows[0])
	<-prepared
	d, acting := e.evaluateActing(ctx, req, in)
	for i := 1; claimorder.Again(windows, i, partial, d, len(in.State.Todos)); i++ {
		in, partial, storeErr = e.inputFrom(rm, req, now, windows[i])
		d, acting = e.evaluateActing(ctx, req, in)
	}
	if acting != nil && d.Verdict == "" {
		return decision.Decision{}, acting, storeErr
	}
	// The log keeps the query's own input: the acting facts are the
	// acting decision's, which is not logged (as ActAs's is not).
	in.Answer = nil
	e.finishDecision(&d, req, in)
	if err := e.logDecision(e.sess.log.Append, d, in, now); err != nil && storeErr == nil {
		link, re := audit.LinkRefusal(err)
		e.AuditRefusal("fs.link_refused", "writing the decision log", "loopx", link, re)
		return unrecorded(d, err), acting, err
	}
	return d, acting, storeErr
}

// entry is the name req's policy is prepared under (Rules.prepared): its
// query's, or for a hook's request the hook entry rule.
func (req Request) entry() string {
	if req.acting != nil {
		return hookRule
	}
	return req.Query.Name
}

// buildInput assembles the policy input; a store failure is reported in
// input.health.store and returned.
func (e *Engine) buildInput(req Request, now time.Time) (input.Input, error) {
	in, _, err := e.inputFrom(e.sess.loadReadModel(now), req, now, 0)
	return in, err
}

// inputFrom is buildInput from the read model rm (nil: the store) with
// input.state.todos a window of at least window todos of the claim order
// when rm keeps one (partial: it leaves todos out; inputstate.Need.Window); while
// the store is held, only the window's order is rm's (inputstate.Under).
func (e *Engine) inputFrom(rm *readmodel.Model, req Request, now time.Time, window int) (in input.Input, partial bool, err error) {
	in = input.Input{Query: req.Query.Name, Now: records.RFC3339(now), Goal: req.Goal, Agent: req.Agent, Permission: req.Permission, Answer: req.acting}
	// The built-in permission policy reads no todos (every tool call would
	// otherwise convert them all): only a user policy may.
	need := inputstate.Need{Usage: true, Todos: req.Query.ReadsTodos || e.userReads(), Window: window}
	if e.rules.specErr != nil {
		in.Health.Spec = errs.Summary(e.rules.specErr)
	}
	if e.sess.store == nil && rm != nil && rm.Has(req.Goal) {
		if in.State, partial, err = e.rules.facts().OfWindow(rm, req.Goal, req.Agent, now, need); err == nil {
			return in, partial, nil
		}
	}
	s, err := e.Store()
	if err == nil {
		err = s.View(func(tx *kernel.Tx) error {
			var err error
			in.State, partial, err = e.rules.facts().OfWindow(inputstate.Under(tx, e.storeWindows(tx, rm, req.Goal, need)), req.Goal, req.Agent, now, need)
			return err
		})
		if err != nil {
			err = kernel.StoreError(s.Path(), err)
		} else {
			e.sess.rmWant = true // the next decision can skip opening the store
		}
	}
	if err != nil {
		in.Health.Store = err.Error()
		in.State, partial = input.Snapshot{Gates: []input.GateFacts{}, Todos: []input.TodoFacts{}}, false
	}
	return in, partial, err
}

// bigGoal is the number of open todos from which a decision over the
// store without a usable read model decides over windows of the claim
// order computed from the store (storeWindows), not every todo.
const bigGoal = readmodel.HeadSize

// storeWindows is the read model whose windows a decision reading the
// store tx uses: rm when given (it describes the store), else, for a
// goal of more than bigGoal open todos whose decision lists todos, one
// with goal's claim order computed from tx's todos (kept for the other
// windows of the same decision; readmodel.WindowsOf); nil otherwise (every
// todo is read).
func (e *Engine) storeWindows(tx *kernel.Tx, rm *readmodel.Model, goal string, need inputstate.Need) *readmodel.Model {
	if rm != nil || !need.Todos || need.Window <= 0 {
		return rm
	}
	rev := tx.StateRevision()
	if c := e.windows; c != nil && c.goal == goal && c.rev == rev {
		return c.rm
	}
	if n, ok, err := tx.OpenTodoCount(goal); err != nil || !ok || n <= bigGoal {
		return nil
	}
	todos, err := tx.Todos(goal)
	if err != nil {
		return nil
	}
	e.windows = &storeWindowCache{goal: goal, rev: rev, rm: readmodel.WindowsOf(goal, todos, claimorder.Order())}
	return e.windows.rm
}

// storeWindowCache is the claim order storeWindows computed last, for
// goal at state revision rev.
type storeWindowCache struct {
	goal string
	rev  uint64
	rm   *readmodel.Model
}

// userReads reports whether an adopted user policy may read the todos
// (rulebook.ReadsTodos); user policies that do not load count as reading.
func (e *Engine) userReads() bool {
	user, err := e.rules.UserModules()
	return err != nil || e.rules.reads.Todos(user)
}

// evaluate runs the query's prepared policy; every failure becomes a deny.
func (e *Engine) evaluate(ctx context.Context, req Request, in input.Input) decision.Decision {
	d, _ := e.evaluateActing(ctx, req, in)
	return d
}

// evaluateActing is evaluate; for a hook's request (req.acting) it runs
// the hook entry rule and returns its acting decision too (nil when it
// gave none).
func (e *Engine) evaluateActing(ctx context.Context, req Request, in input.Input) (decision.Decision, *decision.Decision) {
	rule := req.Query.Entry
	pq, err := e.rules.prepared(ctx, req.entry())
	if err != nil {
		return decision.Deny("policy_error", "policy does not compile: "+err.Error(), rule), nil
	}
	if req.acting != nil {
		return e.evalHook(ctx, pq, req.Query, in)
	}
	return e.evalPrepared(ctx, pq, rule, req.Query, in), nil
}

// evalPrepared evaluates pq (the rule named rule, of q's verdicts) on
// in; every failure becomes a deny.
func (e *Engine) evalPrepared(ctx context.Context, pq *rego.PreparedEvalQuery, rule string, q query.Query, in input.Input) decision.Decision {
	iv, err := input.Value(in)
	if err != nil {
		return decision.Deny("policy_error", "policy input: "+err.Error(), rule)
	}
	v, d := e.evalValue(ctx, pq, rule, iv)
	if d != nil {
		return *d
	}
	return fromValue(v, rule, q)
}

// evalValue evaluates pq on iv and returns the value of its rule; a
// failure is returned as a deny instead (see evalPrepared).
func (e *Engine) evalValue(ctx context.Context, pq *rego.PreparedEvalQuery, rule string, iv ast.Value) (any, *decision.Decision) {
	ctx, cancel := e.rules.withDeadline(ctx)
	defer cancel()
	evaluations.Add(1)
	rs, err := pq.Eval(ctx, rego.EvalParsedInput(iv))
	if err != nil {
		d := decision.Deny("policy_error", rulebook.EvalError(ctx, err, e.rules.PolicyDeadline()), rule)
		return nil, &d
	}
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		d := decision.Deny("policy_undefined", rule+" is undefined for this input", rule)
		return nil, &d
	}
	return rs[0].Expressions[0].Value, nil
}

// fromValue is the decision of q a policy's value v is (decision.FromValue).
func fromValue(v any, rule string, q query.Query) decision.Decision {
	raw, err := json.Marshal(v)
	if err != nil {
		return decision.Deny("policy_error", "policy result: "+err.Error(), rule)
	}
	d := decision.FromValue(raw, q)
	d.Value = raw
	return d
}

// evaluations counts the policy evaluations of decisions in this process
// (Evaluations).
var evaluations atomic.Uint64

// Evaluations is the number of policy evaluations this process has run
// for decisions (Decide, ActAs, HookPermission): what a test counts to
// show that a hook evaluates once.
func Evaluations() uint64 { return evaluations.Load() }

// entropy makes decision ids monotonic within a millisecond; locked, as
// decisions are made from many goroutines at once (parallel tests, and a
// long-lived process serving several clients): the bare monotonic reader
// is not safe for concurrent use.
var entropy = &ulid.LockedMonotonicReader{MonotonicReader: ulid.Monotonic(rand.Reader, 0)}

// finishDecision adds what the engine owns: id, request, quota, revision.
func (e *Engine) finishDecision(d *decision.Decision, req Request, in input.Input) {
	d.DecisionID = ulid.MustNew(ulid.Timestamp(time.Now()), entropy).String()
	d.Query, d.Goal, d.Agent = req.Query.Name, req.Goal, req.Agent
	if d.Verdict != "run" {
		d.Todo = nil
	}
	d.Charge = d.Verdict == "run"
	spec, policy := e.rules.revisions()
	d.Revision = decision.Revision{Spec: spec, Policy: policy, State: in.State.Revision}
	// No made-up usage when the store is unusable, nor for the queries
	// whose snapshot leaves the usage out (claim, gate_answer).
	if gs := e.rules.facts().GoalSpec(req.Goal); gs != nil && in.Health.Store == "" && req.Query.Quota {
		d.Quota = reportdata.QuotaSummary(gs, in.State.Quota)
	}
	if d.NextCheckAt != nil && *d.NextCheckAt == "" {
		d.NextCheckAt = nil
	}
	if e.rules.pending != nil && !e.onDisk {
		d.Reasons = append(d.Reasons, e.rules.pending.Reason())
	}
}
