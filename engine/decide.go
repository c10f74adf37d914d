package engine

import (
	"context"
	"crypto/rand"
	"encoding/json"
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
		_, _ = rules.prepared(ctx, req.Query.Name)
	}()
	rm := e.sess.loadReadModel(now)
	windows := claimorder.Windows(req.Query, e.userReads())
	in, partial, storeErr := e.inputFrom(rm, req, now, windows[0])
	<-prepared
	d := e.evaluate(ctx, req, in)
	for i := 1; claimorder.Again(windows, i, partial, d, len(in.State.Todos)); i++ {
		in, partial, storeErr = e.inputFrom(rm, req, now, windows[i])
		d = e.evaluate(ctx, req, in)
	}
	e.finishDecision(&d, req, in)
	if err := e.logDecision(e.sess.log.Append, d, in, now); err != nil && storeErr == nil {
		link, re := audit.LinkRefusal(err)
		e.AuditRefusal("fs.link_refused", "writing the decision log", "loopx", link, re)
		return unrecorded(d, err), err
	}
	return d, storeErr
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
	in = input.Input{Query: req.Query.Name, Now: records.RFC3339(now), Goal: req.Goal, Agent: req.Agent, Permission: req.Permission}
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
			in.State, partial, err = e.rules.facts().OfWindow(inputstate.Under(tx, rm), req.Goal, req.Agent, now, need)
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

// userReads reports whether an adopted user policy may read the todos
// (rulebook.ReadsTodos); user policies that do not load count as reading.
func (e *Engine) userReads() bool {
	user, err := e.rules.UserModules()
	return err != nil || e.rules.reads.Todos(user)
}

// evaluate runs the query's prepared policy; every failure becomes a deny.
func (e *Engine) evaluate(ctx context.Context, req Request, in input.Input) decision.Decision {
	rule := req.Query.Entry
	pq, err := e.rules.prepared(ctx, req.Query.Name)
	if err != nil {
		return decision.Deny("policy_error", "policy does not compile: "+err.Error(), rule)
	}
	return e.evalPrepared(ctx, pq, rule, req.Query, in)
}

// evalPrepared evaluates pq (the rule named rule, of q's verdicts) on
// in; every failure becomes a deny.
func (e *Engine) evalPrepared(ctx context.Context, pq *rego.PreparedEvalQuery, rule string, q query.Query, in input.Input) decision.Decision {
	iv, err := input.Value(in)
	if err != nil {
		return decision.Deny("policy_error", "policy input: "+err.Error(), rule)
	}
	ctx, cancel := e.rules.withDeadline(ctx)
	defer cancel()
	rs, err := pq.Eval(ctx, rego.EvalParsedInput(iv))
	if err != nil {
		return decision.Deny("policy_error", rulebook.EvalError(ctx, err, e.rules.PolicyDeadline()), rule)
	}
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return decision.Deny("policy_undefined", rule+" is undefined for this input", rule)
	}
	raw, err := json.Marshal(rs[0].Expressions[0].Value)
	if err != nil {
		return decision.Deny("policy_error", "policy result: "+err.Error(), rule)
	}
	d := decision.FromValue(raw, q)
	d.Value = raw
	return d
}

var entropy = ulid.Monotonic(rand.Reader, 0)

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
