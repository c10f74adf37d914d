package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/spf13/cobra"
)

// explainOptions are the argument and flags of `loopx explain`.
type explainOptions struct {
	decision string
	full     bool
}

// validate checks the flags alone (no project opened).
func (o *explainOptions) validate() error { return nil }

// runExplain shows a logged decision and its traced re-run
// (engine.Explain); a re-run's error is returned after the explanation.
func (a *app) runExplain(ctx context.Context, o *explainOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	x, err := e.Explain(ctx, o.decision)
	if x.Logged.DecisionID == "" {
		return err
	}
	if perr := a.print(x, func(w io.Writer) { renderExplanation(w, x, o.full) }); perr != nil {
		return perr
	}
	return err
}

func (a *app) explainCmd() *cobra.Command {
	o := &explainOptions{}
	c := &cobra.Command{
		Use:   "explain DECISION_ID [--full-trace]",
		Short: "Show a logged decision again: its input, reasons, and a traced re-run now",
		Long: `Explain finds a decision in the decision log and shows what was asked, the
verdict and reasons given then, and the same request decided again now with
OPA's tracer: the rules evaluated (every step with --full-trace), whether
today's spec, policy and state decide the same, and which of them changed
since. The re-run reads the current state ("state changed since: revision
12 → 15"); it is not logged. The whole input the decision evaluated is
stored beside the log (.loopx/inputs/<sha256>.json), and explain prints the
'opa eval' command line that reproduces the logged result from it and the
stored bundles.

Exit codes: 0 shown; 2 unknown decision id; 3 internal error.`,
		Example: `  loopx explain 01JD4M3X8Y2Z7Q5W9V6T1R0S2P
  loopx explain 01JD4M3X8Y2Z7Q5W9V6T1R0S2P --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.decision = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runExplain(cmd.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.full, "full-trace", false, "show every step of the evaluation trace, not only the rules")
	return c
}

func renderExplanation(w io.Writer, x decision.Explanation, full bool) {
	le, then := x.Logged, x.Then
	fmt.Fprintf(w, "decision %s (%s) at %s\n", le.DecisionID, then.Query, le.Timestamp.UTC().Format("2006-01-02T15:04:05Z"))
	fmt.Fprintf(w, "  asked: goal %s, agent %s, now %s\n", le.Input.Goal, le.Input.Agent, le.Input.Now)
	for _, h := range [][2]string{{"store", le.Input.Health.Store}, {"spec", le.Input.Health.Spec}, {"policy", le.Input.Health.Policy}} {
		if h[1] != "" {
			fmt.Fprintf(w, "  %s was unusable: %s\n", h[0], h[1])
		}
	}
	fmt.Fprintf(w, "  revisions: spec %s, policy %s, state %d\n", short(then.Revision.Spec), short(then.Revision.Policy), then.Revision.State)
	switch x.StoredInputState {
	case "stored":
		fmt.Fprintf(w, "  input evaluated: %s\n", x.StoredInput)
		if x.OPAEval != "" {
			fmt.Fprintf(w, "  reproduce with OPA: %s\n", x.OPAEval)
		}
	case "pruned":
		fmt.Fprintf(w, "  input evaluated: %s (pruned)\n", x.StoredInput)
	case "altered":
		fmt.Fprintf(w, "  input evaluated: %s (altered since: its SHA-256 is not the logged one)\n", x.StoredInput)
	default:
		fmt.Fprintln(w, "  input evaluated: not stored (a line of an earlier loopx)")
	}
	fmt.Fprint(w, "then: ")
	renderDecision(w, then, false)
	fmt.Fprint(w, "now:  ")
	renderDecision(w, x.Rerun, false)
	for _, c := range x.Changes {
		fmt.Fprintf(w, "  %s\n", c)
	}
	switch {
	case x.Same && len(x.Differences) == 0:
		fmt.Fprintln(w, "today's spec, policy and state decide the same")
	case x.Same:
		fmt.Fprintf(w, "today's spec, policy and state decide the same verdict, todo and reasons (messages differ: %s)\n", strings.Join(x.Differences, "; "))
	default:
		fmt.Fprintf(w, "today's spec, policy and state decide differently: %s\n", strings.Join(x.Differences, "; "))
	}
	trace := x.RuleTrace
	if full {
		fmt.Fprintln(w, "trace of the re-run:")
		trace = x.Trace
	} else {
		fmt.Fprintln(w, "trace of the re-run (rules; --full-trace for every step):")
	}
	for _, l := range trace {
		fmt.Fprintf(w, "  %s\n", l)
	}
}
