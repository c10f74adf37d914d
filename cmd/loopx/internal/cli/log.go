package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/specs"
	"github.com/spf13/cobra"
)

func (a *app) logCmd() *cobra.Command {
	var f engine.LogFilter
	var since string
	c := &cobra.Command{
		Use:   "log [--goal G] [--agent A] [--verdict V] [--since 2h] [--limit N]",
		Short: "List logged decisions (.loopx/decisions.jsonl and its rotated files)",
		Long: `Log lists decisions from the decision log, oldest first: the current
.loopx/decisions.jsonl and its rotated files. Each has an id for
'loopx explain ID'. --json prints the log lines as they are stored: OPA
decision-log events (labels, decision_id, revision, bundles, path, input,
result, erased, timestamp, custom; README "The decision log"). Lines of an
earlier loopx (revision an object, input_hash) are read and shown too.

Exit codes: 0 ok; 2 bad flags.`,
		Example: `  loopx log --goal g1 --since 2h
  loopx log --agent a1 --verdict wait_human --limit 5 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			if since != "" {
				d, err := specs.ParseDuration(since)
				if err != nil {
					return usagef("--since %q: %v", since, err)
				}
				f.Since = e.Now().Add(-d)
			}
			if f.Limit < 0 {
				return usagef("--limit must be ≥ 0")
			}
			if v := f.Verdict; v != "" && !slices.Contains(engine.Verdicts(), v) {
				return usagef("--verdict %q is not a verdict (%s)", v, strings.Join(engine.Verdicts(), ", "))
			}
			entries, skipped, err := e.ReadLog(f)
			if err != nil {
				return err
			}
			if skipped > 0 {
				fmt.Fprintf(a.stderr, "loopx: warning: skipped %d unreadable line(s) in the decision log\n", skipped)
			}
			if entries == nil {
				entries = []engine.LogEntry{}
			}
			return a.print(entries, func(w io.Writer) {
				rows := [][]string{}
				for _, le := range entries {
					d := engine.LoggedDecision(le)
					todo, why := "", ""
					if d.Todo != nil {
						todo = d.Todo.ID
					}
					if len(d.Reasons) > 0 {
						why = d.Reasons[0].Code + ": " + d.Reasons[0].Message
					}
					rows = append(rows, []string{le.Timestamp.UTC().Format("2006-01-02T15:04:05Z"), le.DecisionID,
						d.Goal + "/" + d.Agent, d.Verdict, todo, why})
				}
				printTable(w, []string{"TIME", "DECISION", "GOAL/AGENT", "VERDICT", "TODO", "REASON"}, rows)
			})
		},
	}
	c.Flags().StringVar(&f.Goal, "goal", "", "only this goal")
	c.Flags().StringVar(&f.Agent, "agent", "", "only this agent")
	c.Flags().StringVar(&f.Verdict, "verdict", "", "only this verdict (run, skip, wait_human, deny, allow, defer, ask)")
	c.Flags().StringVar(&since, "since", "", "only decisions this recent (e.g. 2h, 7d)")
	c.Flags().IntVar(&f.Limit, "limit", 50, "only the newest N (0 = all)")
	return c
}

func (a *app) explainCmd() *cobra.Command {
	var full bool
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
			e, err := a.engine()
			if err != nil {
				return err
			}
			x, err := e.Explain(cmd.Context(), args[0])
			if x.Logged.DecisionID == "" {
				return err
			}
			if perr := a.print(x, func(w io.Writer) { renderExplanation(w, x, full) }); perr != nil {
				return perr
			}
			return err
		},
	}
	c.Flags().BoolVar(&full, "full-trace", false, "show every step of the evaluation trace, not only the rules")
	return c
}

func renderExplanation(w io.Writer, x engine.Explanation, full bool) {
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
