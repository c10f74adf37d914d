package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/internal/frontend/gateanswer"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel/records"
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

// runReview prints the review packet (engine.Review); with --mark a
// human confirms at the terminal first (data.loopx.repair.mark_reviewed),
// then the review is marked (engine.MarkReviewed).
func (a *app) runReview(ctx context.Context, o *reviewOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	if o.Actor, err = a.actor(ctx, e, "review", o.Goal); err != nil {
		return err
	}
	repair := gateanswer.Repair{Rule: "mark_reviewed", Command: "review --mark", Kind: "review.mark_refused", Subject: o.Goal, Nothing: true}
	if o.Mark {
		// Moving the marker hides what came before from the next
		// review: a human's call, decided before the review is built.
		if err := gateanswer.ConfirmRepair(ctx, e, a.caller(), a.terminal(), repair); err != nil {
			return err
		}
	}
	mark := o.Mark
	o.Mark = false
	rv, err := e.Review(o.ReviewOptions)
	if err != nil {
		return err
	}
	if mark {
		repair.Nothing, repair.Prompt = false, markPrompt(rv)
		if err := gateanswer.ConfirmRepair(ctx, e, a.caller(), a.terminal(), repair); err != nil {
			return err
		}
		if err := e.MarkReviewed(o.ReviewOptions, rv); err != nil {
			return err
		}
	}
	line := e.Pending().Line()
	return a.print(withPending(rv, line), func(w io.Writer) {
		fmt.Fprint(w, rv.Markdown)
		if line != "" {
			fmt.Fprintf(w, "\n> %s\n", line)
		}
	})
}

// markPrompt is what `loopx review --mark` shows before the person types
// "mark": what the next review leaves out once this one is marked.
func markPrompt(rv render.Review) string {
	return inert.Text(fmt.Sprintf("loopx review --mark: mark goal %s reviewed up to now\n"+
		"the next loopx review starts here: the %d event(s) and %d refusal(s) since %s that this review shows are not shown again (loopx review --since still shows them)\n"+
		"type \"mark\" to confirm: ", rv.Goal, len(rv.Events), len(rv.Refusals), records.RFC3339(rv.Since)))
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
human only: refused (exit 1, audited as review.mark_refused) inside an agent
round and from a process that descends from an agent. The person reads on
the controlling terminal what the next review leaves out and confirms by
typing "mark" there (read from /dev/tty, not stdin: no terminal, or anything
else typed, marks nothing, exit 1); there is no flag that skips it, so it
does not run from a script.`,
		Example: `  loopx review --goal g1
  loopx review --goal g1 --mark   # says what the next review leaves out; type mark to confirm
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
