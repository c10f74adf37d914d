package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/spf13/cobra"
)

// reviewOptions are the flags of `loopx review`.
type reviewOptions struct {
	reportdata.ReviewOptions
	since string
}

// validate checks the flags alone (no project opened): --since a positive
// duration, --goal required.
func (o *reviewOptions) validate() error {
	if o.since != "" {
		d, err := engine.ParseDuration(o.since)
		if err != nil || d <= 0 {
			return usagef("--since %q: want a positive duration such as 24h or 7d", o.since)
		}
		o.Since = d
	}
	if o.Goal == "" {
		return usagef("review needs --goal")
	}
	return nil
}

// runReview prints the review packet (engine.Review); --mark first asks
// the built-in repair rule (a human only).
func (a *app) runReview(ctx context.Context, o *reviewOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	if o.Actor, err = a.actor(ctx, e, "review", o.Goal); err != nil {
		return err
	}
	if o.Mark {
		// Moving the marker hides what came before from the next
		// review: a human's call (data.loopx.repair.decision).
		if err := a.humanOnly(ctx, e, "review --mark", true, "review.mark_refused", o.Goal); err != nil {
			return err
		}
	}
	rv, err := e.Review(o.ReviewOptions)
	if err != nil {
		return err
	}
	line := e.Pending().Line()
	return a.print(withPending(rv, line), func(w io.Writer) {
		fmt.Fprint(w, rv.Markdown)
		if line != "" {
			fmt.Fprintf(w, "\n> %s\n", line)
		}
	})
}

func (a *app) reviewCmd() *cobra.Command {
	o := &reviewOptions{}
	c := &cobra.Command{
		Use:   "review --goal G [--since 24h]",
		Short: "Print a human review packet (Markdown) for a goal",
		Long: `Review prints what a human needs to review a goal, in Markdown: what changed
since the last review (audit events, rounds), open gates with their questions,
options and the command to answer, live leases, evidence (stale marked), quota
spent, the decisions that said no and why (from .loopx/decisions.jsonl), and
the latest handoff. Without --since it covers the time since the last marked
review of the goal (none yet: 24h).

A review is read-only: printing one moves nothing, so an agent that runs it
cannot hide its work from the human's next review. --mark records the review
(a review.generated event) and moves "since the last review" to now; it is
human only: refused (exit 1) inside an agent round and from a process that
descends from an agent.`,
		Example: `  loopx review --goal g1
  loopx review --goal g1 --mark
  loopx review --goal g1 --since 7d > review.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runReview(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Goal, "goal", "", "the goal (required)")
	c.Flags().StringVar(&o.since, "since", "", "how far back (default: since the last marked review, else 24h)")
	c.Flags().BoolVar(&o.Mark, "mark", false, "record this review: the next one starts here (human only)")
	return c
}
