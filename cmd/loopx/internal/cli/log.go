package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/spf13/cobra"
)

// logOptions are the flags of `loopx log`.
type logOptions struct {
	decision.LogFilter
	since string
}

// validate checks the flags alone (no project opened): --since a
// duration, --limit not negative, --verdict a verdict.
func (o *logOptions) validate() error {
	if o.since != "" {
		if _, err := engine.ParseDuration(o.since); err != nil {
			return sinceError(o.since)
		}
	}
	if o.Limit < 0 {
		return usagef("--limit must be ≥ 0")
	}
	if v := o.Verdict; v != "" && !slices.Contains(query.Verdicts(), v) {
		return usagef("--verdict %q is not a verdict (%s)", v, strings.Join(query.Verdicts(), ", "))
	}
	return nil
}

// runLog lists the logged decisions (engine.ReadLog).
func (a *app) runLog(_ context.Context, o *logOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	f := o.LogFilter
	if o.since != "" {
		d, _ := engine.ParseDuration(o.since) // checked by validate
		f.Since = e.Now().Add(-d)
	}
	entries, skipped, err := e.ReadLog(f)
	if err != nil {
		return err
	}
	if skipped > 0 {
		fmt.Fprintf(a.stderr, "loopx: warning: skipped %d unreadable line(s) in the decision log\n", skipped)
	}
	if entries == nil {
		entries = []decision.LogEntry{}
	}
	return a.print(entries, func(w io.Writer) {
		rows := [][]string{}
		for _, le := range entries {
			d := decision.Logged(le)
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
}

func (a *app) logCmd() *cobra.Command {
	o := &logOptions{}
	c := &cobra.Command{
		Use:   "log [--goal G] [--agent A] [--verdict V] [--since 2h] [--limit N]",
		Short: "List logged decisions (.loopx/decisions.jsonl and its rotated files)",
		Long: `Log lists decisions from the decision log, oldest first: the current
.loopx/decisions.jsonl and its rotated files. Each has an id for
'loopx explain ID'. --json prints the log lines as they are stored: OPA
decision-log events (labels, decision_id, revision, bundles, path, input,
result, erased, timestamp, custom; docs/decisions.md "The decision log"). Lines of an
earlier loopx (revision an object, input_hash) are read and shown too.

Exit codes: 0 ok; 2 bad flags.`,
		Example: `  loopx log --goal g1 --since 2h
  loopx log --agent a1 --verdict wait_human --limit 5 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runLog(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Goal, "goal", "", "only this goal")
	c.Flags().StringVar(&o.Agent, "agent", "", "only this agent")
	c.Flags().StringVar(&o.Verdict, "verdict", "", "only this verdict (run, skip, wait_human, deny, allow, defer, ask)")
	c.Flags().StringVar(&o.since, "since", "", "only decisions this recent (e.g. 2h, 7d)")
	c.Flags().IntVar(&o.Limit, "limit", 50, "only the newest N (0 = all)")
	return c
}
