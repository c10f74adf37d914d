package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/spf13/cobra"
)

func (a *app) handoffCmd() *cobra.Command {
	c := &cobra.Command{Use: "handoff", Short: "Show handoffs: what the next round (any agent) must know"}
	c.AddCommand(a.handoffShowCmd())
	return c
}

// handoffShowOptions are the flags of `loopx handoff show`.
type handoffShowOptions struct {
	goal string
	all  bool
}

// validate checks the flags alone (no project opened).
func (o *handoffShowOptions) validate() error { return nil }

// runHandoffShow prints the latest handoff, or every one with --all.
func (a *app) runHandoffShow(_ context.Context, o *handoffShowOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	hs, err := e.Handoffs(o.goal)
	if err != nil {
		return err
	}
	if o.all {
		return a.print(contract.Handoffs(hs), func(w io.Writer) {
			if len(hs) == 0 {
				fmt.Fprintln(w, "no handoffs")
			}
			for _, h := range hs {
				renderHandoff(w, h)
			}
		})
	}
	var latest *records.Handoff
	var shown *contract.Handoff
	if len(hs) > 0 {
		latest = &hs[len(hs)-1]
		h := contract.HandoffOf(*latest)
		shown = &h
	}
	return a.print(shown, func(w io.Writer) {
		if latest == nil {
			fmt.Fprintln(w, "no handoffs")
			return
		}
		renderHandoff(w, *latest)
	})
}

func (a *app) handoffShowCmd() *cobra.Command {
	o := &handoffShowOptions{}
	c := &cobra.Command{
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
			if err := o.validate(); err != nil {
				return err
			}
			return a.runHandoffShow(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.goal, "goal", "", "only this goal")
	c.Flags().BoolVar(&o.all, "all", false, "every handoff, oldest first")
	return c
}

func renderHandoff(w io.Writer, h records.Handoff) {
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
