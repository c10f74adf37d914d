package cli

import (
	"context"
	"io"
	"os"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

// policyEvalOptions are the argument and flags of `loopx policy eval`.
type policyEvalOptions struct {
	query, inputPath, goal, agent string
	explain                       bool
}

// validate checks the flags alone (no project opened): --input is
// required.
func (o *policyEvalOptions) validate() error {
	if o.inputPath == "" {
		return usagef("policy eval needs --input FILE (- for stdin)")
	}
	return nil
}

// runPolicyEval reads the input and decides the query on it
// (engine.EvalInput) without logging or changing anything.
func (a *app) runPolicyEval(ctx context.Context, o *policyEvalOptions) error {
	var raw []byte
	var err error
	if o.inputPath == "-" {
		raw, err = io.ReadAll(a.stdin)
	} else {
		raw, err = os.ReadFile(a.abs(o.inputPath))
	}
	if err != nil {
		return usagef("--input: %v", err)
	}
	e, err := a.diskEngine()
	if err != nil {
		return err
	}
	d, _, derr := e.EvalInput(ctx, o.query, raw, o.goal, o.agent)
	if errs.IsKind(derr, errs.Usage) {
		return derr
	}
	if err := a.print(d, func(w io.Writer) { renderDecision(w, d, o.explain) }); err != nil {
		return err
	}
	if derr != nil {
		return reported(errs.KindOf(derr))
	}
	if exitForVerdict(d.Verdict) != ExitOK {
		return reported(errs.No)
	}
	return nil
}

func (a *app) policyEvalCmd() *cobra.Command {
	o := &policyEvalOptions{}
	c := &cobra.Command{
		Use:   "eval QUERY --input FILE [--goal G --agent A]",
		Short: "Decide a query (should_run, permission, claim, gate_answer) on a hand-written input",
		Long: `Eval evaluates QUERY (should_run, permission, claim or gate_answer) with the current spec and
policies — built-in and user — on the input in FILE ("-" reads stdin) and
prints the decision, without logging it or changing the state.

The input has the shape of a decision's input (see "loopx decide … --json"
and docs/decisions.md): query, now, goal, agent, health, state, and the query's
request: permission, claim ({op, todo: {id, status, kind, …}}) or answer
({gate: {…}, option, actor, channel: {kind, …}}). --goal and
--agent replace input.goal and input.agent; a missing now is the current
time (set now to try another instant: eval never acts on its answer); a
missing state is the current kernel snapshot for the goal and agent at
that instant; permission may be written as a caller asks
it, {"tool": "Bash", "command": "git push", "paths": ["a.go"]}, and is
normalised as loopx decide permission does.

Exit codes: 0 the decision lets the caller go on (run, allow, defer); 1 it does not; 2 usage
error, an unknown query or a malformed input.`,
		Example: `  loopx policy eval should_run --input sunday.json --goal g1 --agent a1
  echo '{"permission": {"tool": "Bash", "command": "git push"}}' | loopx policy eval permission --input - --goal g1 --agent a1
  loopx policy eval should_run --input in.json --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.query = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runPolicyEval(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.inputPath, "input", "", "the input document (JSON); - reads stdin")
	f.StringVar(&o.goal, "goal", "", "replace input.goal")
	f.StringVar(&o.agent, "agent", "", "replace input.agent")
	f.BoolVar(&o.explain, "explain", false, "also show the rule and spec field behind each reason")
	return c
}
