package engine

import (
	"context"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Explain finds decision id in the decision log (current and rotated files)
// and re-decides its request now — the logged input keeps the request, not
// the kernel snapshot, so the re-run reads the current state — with OPA's
// tracer on. It reports the revisions that changed since and whether the
// re-run decides the same. Errors: an unknown id is an errs.Usage error
// (unknown_decision); a re-run on an unusable store still returns the
// fail-closed explanation together with the store error.
func (e *Engine) Explain(ctx context.Context, id string) (decision.Explanation, error) {
	le, err := e.FindDecision(id)
	if err != nil {
		return decision.Explanation{}, err
	}
	then := decision.Logged(le)
	defer e.Release()
	d, in, storeErr := e.rerun(ctx, le)
	x := decision.Explanation{Logged: le, Then: then, Rerun: d, Input: in, Differences: []string{}, Changes: []string{}, StoredInputState: "none"}
	x.StoredInput, x.StoredInputState = decision.StoredInput(le, e.StateDir(), scaffold.StateDirName)
	if x.StoredInputState == "stored" {
		x.OPAEval = decision.OPAEvalCommand(le, e.root, e.StateDir())
	}
	x.RuleTrace, x.Trace = e.trace(ctx, logRequest(le), in)

	x.Changes = append(x.Changes, decision.Changes(then.Revision, d.Revision)...)
	x.Same, x.Differences = decision.Compare(then, d)
	return x, storeErr
}

// trace evaluates req's prepared query on in once more with a buffer tracer
// and renders the rule-level and the full trace with locations.
func (e *Engine) trace(ctx context.Context, req Request, in input.Input) (rules, full []string) {
	pq, err := e.rules.prepared(ctx, req.Query.Name)
	if err != nil {
		msg := []string{"no trace: the policy does not compile: " + err.Error()}
		return msg, msg
	}
	buf := topdown.NewBufferTracer()
	ctx, cancel := e.rules.withDeadline(ctx)
	defer cancel()
	if _, err := pq.Eval(ctx, rego.EvalInput(in), rego.EvalQueryTracer(buf)); err != nil {
		msg := []string{rulebook.EvalError(ctx, err, e.rules.PolicyDeadline())}
		return msg, msg
	}
	return decision.Trace(*buf)
}
