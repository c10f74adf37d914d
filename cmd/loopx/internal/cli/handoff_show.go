package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/specs"
	"github.com/spf13/cobra"
)

func (a *app) handoffCmd() *cobra.Command {
	c := &cobra.Command{Use: "handoff", Short: "Show handoffs: what the next round (any agent) must know"}
	var goal string
	var all bool
	show := &cobra.Command{
		Use:   "show [--goal G] [--all]",
		Short: "Show the latest handoff (of a goal, or of any goal), or all of them",
		Long: `Show prints the latest handoff — written by 'loopx round finish --handoff TEXT
[--next-todo TITLE [--for AGENT]]' — so that whichever agent comes next
continues the goal. --all prints every handoff, oldest first. Under --json the
latest is one object (null when there is none), --all an array.`,
		Example: `  loopx handoff show --goal g1
  loopx handoff show --goal g1 --all --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			hs, err := e.Handoffs(goal)
			if err != nil {
				return err
			}
			if all {
				return a.print(hs, func(w io.Writer) {
					if len(hs) == 0 {
						fmt.Fprintln(w, "no handoffs")
					}
					for _, h := range hs {
						renderHandoff(w, h)
					}
				})
			}
			var latest *kernel.Handoff
			if len(hs) > 0 {
				latest = &hs[len(hs)-1]
			}
			return a.print(latest, func(w io.Writer) {
				if latest == nil {
					fmt.Fprintln(w, "no handoffs")
					return
				}
				renderHandoff(w, *latest)
			})
		},
	}
	show.Flags().StringVar(&goal, "goal", "", "only this goal")
	show.Flags().BoolVar(&all, "all", false, "every handoff, oldest first")
	c.AddCommand(show)
	return c
}

func renderHandoff(w io.Writer, h kernel.Handoff) {
	by := h.Agent
	if by == "" {
		by = "-"
	}
	fmt.Fprintf(w, "%s %s (goal %s) by %s", h.ID, h.CreatedAt.UTC().Format(time.RFC3339), h.Goal, by)
	if h.Round != "" {
		fmt.Fprintf(w, " in %s", h.Round)
	}
	fmt.Fprintf(w, "\n  %s\n", h.Summary)
	if h.NextTodo != "" {
		fmt.Fprintf(w, "  next todo: %s", h.NextTodo)
		if h.For != "" {
			fmt.Fprintf(w, " (for %s)", h.For)
		}
		fmt.Fprintln(w)
	}
	for _, q := range h.Questions {
		fmt.Fprintf(w, "  question: %s\n", q)
	}
}

func (a *app) promptCmd() *cobra.Command {
	var o engine.PromptOptions
	c := &cobra.Command{
		Use:   "prompt --goal G --agent A [--full]",
		Short: "Print the bounded-turn prompt an agent host feeds its model",
		Long: `Prompt decides should-run for the agent and prints the prompt of one bounded
turn: the objective, the selected todo (with its lease), open gates with their
questions, the scope rules, the latest handoff, fresh evidence (younger than
evidence.stale_after), the remaining quota, and the exact loopx commands to
report back. It is at most 2,000 characters (--max-chars) unless --full.
When the decision is not run, the prompt says why and that no work is due.
'loopx run' writes the same prompt to $LOOPX_PROMPT_FILE.

Exit codes: 0 printed (whatever the verdict); 2 unknown goal; 3 internal.`,
		Example: `  loopx prompt --goal g1 --agent codex
  loopx prompt --goal g1 --agent codex --full --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			if o.Goal == "" || o.Agent == "" {
				return usagef("prompt needs --goal and --agent")
			}
			p, err := e.Prompt(cmd.Context(), o)
			if err != nil {
				return err
			}
			return a.print(p, func(w io.Writer) { fmt.Fprint(w, p.Text) })
		},
	}
	c.Flags().StringVar(&o.Goal, "goal", "", "the goal (required)")
	c.Flags().StringVar(&o.Agent, "agent", defaultAgent(), "the agent (required; default $LOOPX_AGENT)")
	c.Flags().BoolVar(&o.Full, "full", false, "no length bound: every gate, the whole handoff, more evidence")
	c.Flags().IntVar(&o.MaxChars, "max-chars", engine.DefaultPromptChars, "the length bound in characters")
	return c
}

func (a *app) reviewCmd() *cobra.Command {
	var o engine.ReviewOptions
	var since string
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
			if since != "" {
				d, err := specs.ParseDuration(since)
				if err != nil || d <= 0 {
					return usagef("--since %q: want a positive duration such as 24h or 7d", since)
				}
				o.Since = d
			}
			e, err := a.engine()
			if err != nil {
				return err
			}
			if o.Goal == "" {
				return usagef("review needs --goal")
			}
			if o.Actor, err = actor(cmd.Context(), e, "review", o.Goal); err != nil {
				return err
			}
			if o.Mark {
				// Moving the marker hides what came before from the next
				// review: a human's call (data.loopx.gate.repair).
				in := engine.AnswerInput{Actor: "human"}
				if err := e.RepairAllowed(cmd.Context(), answerChannel(e, &in, a.stdin)); err != nil {
					if re := errs.As(err); re != nil && re.Kind == errs.No {
						re.Message = "review --mark is for a human: " + re.Message
					}
					return err
				}
			}
			rv, err := e.Review(o)
			if err != nil {
				return err
			}
			return a.print(rv, func(w io.Writer) { fmt.Fprint(w, rv.Markdown) })
		},
	}
	c.Flags().StringVar(&o.Goal, "goal", "", "the goal (required)")
	c.Flags().StringVar(&since, "since", "", "how far back (default: since the last marked review, else 24h)")
	c.Flags().BoolVar(&o.Mark, "mark", false, "record this review: the next one starts here (human only)")
	return c
}
