package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/loopx-dev/loopx/engine/decision"
	"github.com/loopx-dev/loopx/engine/declog"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Explanation is a logged decision shown again (`loopx explain ID`): what
// was asked and answered then, the same request decided now on today's
// spec, policy and state, an evaluation trace of that re-run, and whether
// the answer is the same.
type Explanation struct {
	// Logged is the decision-log line (an OPA decision-log event): the
	// request, bundles and the policy's result then. Its input has no
	// kernel snapshot (LogEntry).
	Logged LogEntry `json:"logged"`
	// Then is the decision loopx answered then (Logged.Decision()).
	Then Decision `json:"then"`
	// StoredInput is the whole input the logged decision evaluated,
	// relative to the project root (".loopx/inputs/<hex>.json"), "" when
	// there is none; StoredInputState says which: "stored", "pruned" (the
	// line names it, the file is gone), "altered" (the file's SHA-256 is not
	// the one the line names: it was changed after the decision) or "none"
	// (a line of loopx's earlier format).
	StoredInput      string `json:"stored_input"`
	StoredInputState string `json:"stored_input_state"`
	// OPAEval is the `opa eval` command line that evaluates the logged
	// path on the stored bundles and input, run from the project root; its
	// output is the logged result. "" when a file it needs is gone or the
	// policy was not evaluated (custom.decided_by "loopx").
	OPAEval string `json:"opa_eval"`
	// Rerun is the same request decided now, over the current snapshot. It
	// is not appended to the decision log.
	Rerun Decision `json:"rerun"`
	// Same is true when the re-run has the logged verdict, todo and reason
	// codes.
	Same bool `json:"same"`
	// Differences says what differs between Logged.Result and Rerun, one
	// item per field ("verdict: wait_human → run"); empty when Same and the
	// messages match too.
	Differences []string `json:"differences"`
	// Changes says which of the decision's inputs changed since it was
	// logged ("state changed since: revision 12 → 15"); empty when the
	// spec, policy and store revisions are the logged ones.
	Changes []string `json:"changes"`
	// Input is the re-run's full input (with the current kernel snapshot).
	Input Input `json:"input"`
	// RuleTrace is the re-run's trace reduced to rules entered and exited
	// (OPA trace events on rules, without redo), one line per item: which
	// step of the policy matched, with file:line.
	RuleTrace []string `json:"rule_trace"`
	// Trace is OPA's full evaluation trace of the re-run
	// (topdown.PrettyTraceWithLocation), one line per item.
	Trace []string `json:"trace"`
}

// Explain finds decision id in the decision log (current and rotated files)
// and re-decides its request now — the logged input keeps the request, not
// the kernel snapshot, so the re-run reads the current state — with OPA's
// tracer on. It reports the revisions that changed since and whether the
// re-run decides the same. Errors: an unknown id is an errs.Usage error
// (unknown_decision); a re-run on an unusable store still returns the
// fail-closed explanation together with the store error.
func (e *Engine) Explain(ctx context.Context, id string) (Explanation, error) {
	le, err := e.FindDecision(id)
	if err != nil {
		return Explanation{}, err
	}
	then := LoggedDecision(le)
	defer e.Release()
	d, in, storeErr := e.rerun(ctx, le)
	x := Explanation{Logged: le, Then: then, Rerun: d, Input: in, Differences: []string{}, Changes: []string{}, StoredInputState: "none"}
	if p := le.InputPath(e.StateDir()); p != "" {
		x.StoredInput, x.StoredInputState = filepath.ToSlash(filepath.Join(StateDirName, declog.InputsDirName, filepath.Base(p))), "pruned"
		if b, err := os.ReadFile(p); err == nil {
			x.StoredInputState = "altered"
			if sum := sha256.Sum256(b); "sha256:"+hex.EncodeToString(sum[:]) == le.Custom.Input {
				x.StoredInputState = "stored"
				x.OPAEval = e.opaEvalCommand(le)
			}
		}
	}
	x.RuleTrace, x.Trace = e.trace(ctx, logRequest(le), in)

	x.Changes = append(x.Changes, decision.Changes(then.Revision, d.Revision)...)
	x.Same, x.Differences = decision.Compare(then, d)
	return x, storeErr
}

var policyPath = regexp.MustCompile(`^[a-z_]+(/[a-z_]+)*$`)

// opaEvalCommand is the `opa eval` command line that reproduces le's result
// from the project root, "" when a file it needs is not stored.
func (e *Engine) opaEvalCommand(le LogEntry) string {
	// The path goes into a command line a person may paste: only the
	// query's own entry rule, never what a line says.
	if le.Custom.DecidedBy != "" || le.Path != "loopx/"+policyArea(le.Input.Query)+"/decision" || !policyPath.MatchString(le.Path) {
		return ""
	}
	rel := func(p string) string {
		if p == "" {
			return ""
		}
		if _, err := os.Stat(p); err != nil {
			return ""
		}
		r, err := filepath.Rel(e.root, p)
		if err != nil {
			return ""
		}
		return filepath.ToSlash(r)
	}
	in, pol := rel(le.InputPath(e.StateDir())), rel(le.BundlePath(e.StateDir(), declog.PolicyBundle))
	if in == "" || pol == "" {
		return ""
	}
	cmd := "opa eval -f raw -b " + pol
	if _, ok := le.Bundles[declog.SpecBundle]; ok {
		spec := rel(le.BundlePath(e.StateDir(), declog.SpecBundle))
		if spec == "" {
			return ""
		}
		cmd += " -b " + spec
	}
	return cmd + " -i " + in + " data." + strings.ReplaceAll(le.Path, "/", ".")
}

// trace evaluates req's prepared query on in once more with a buffer tracer
// and renders the rule-level and the full trace with locations.
func (e *Engine) trace(ctx context.Context, req Request, in Input) (rules, full []string) {
	pq, err := e.prepare(ctx, req.Query)
	if err != nil {
		msg := []string{"no trace: the policy does not compile: " + err.Error()}
		return msg, msg
	}
	buf := topdown.NewBufferTracer()
	ctx, cancel := e.withDeadline(ctx)
	defer cancel()
	if _, err := pq.Eval(ctx, rego.EvalInput(in), rego.EvalQueryTracer(buf)); err != nil {
		msg := []string{e.evalErrorMessage(ctx, err)}
		return msg, msg
	}
	var ruleEvents []*topdown.Event
	for _, ev := range *buf {
		if _, ok := ev.Node.(*ast.Rule); ok && ev.Op != topdown.RedoOp {
			ruleEvents = append(ruleEvents, ev)
		}
	}
	return prettyTrace(ruleEvents), prettyTrace(*buf)
}

func prettyTrace(evs []*topdown.Event) []string {
	var b strings.Builder
	topdown.PrettyTraceWithLocation(&b, evs)
	out := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i, l := range out {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// shortHash is "sha256:" and the first 12 hex digits of h (decision.ShortHash).
func shortHash(h string) string { return decision.ShortHash(h) }
