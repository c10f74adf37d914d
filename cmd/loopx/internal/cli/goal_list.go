package cli

import (
	"context"
	"io"

	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/spf13/cobra"
)

func (a *app) goalCmd() *cobra.Command {
	c := &cobra.Command{Use: "goal", Short: "List goals, show one, pause, resume or finish it"}
	c.AddCommand(a.goalListCmd(), a.goalShowCmd(),
		a.goalStatusCmd("pause", records.GoalPaused, "Pause a goal: should-run answers skip until resumed"),
		a.goalStatusCmd("resume", records.GoalActive, "Resume a paused goal"),
		a.goalStatusCmd("done", records.GoalDone, "Mark a goal done"),
		a.goalStatusCmd("archive", records.GoalArchived, "Archive a goal"))
	return c
}

// goalListOptions are the flags of `loopx goal list` (none of its own).
type goalListOptions struct{}

// validate checks the flags alone (no project opened).
func (o *goalListOptions) validate() error { return nil }

// runGoalList lists the spec's goals with their runtime status.
func (a *app) runGoalList(_ context.Context, _ *goalListOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	st, err := e.Status("")
	if err != nil {
		return err
	}
	return a.print(st.Goals, func(w io.Writer) {
		rows := [][]string{}
		for _, g := range st.Goals {
			rows = append(rows, []string{g.ID, g.Status, render.QuotaLine(g.Quota), g.Objective})
		}
		printTable(w, []string{"GOAL", "STATUS", "QUOTA", "OBJECTIVE"}, rows)
	})
}

func (a *app) goalListCmd() *cobra.Command {
	o := &goalListOptions{}
	return &cobra.Command{
		Use: "list", Short: "List the spec's goals with their runtime status", Args: cobra.NoArgs,
		Example: "  loopx goal list --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runGoalList(cmd.Context(), o)
		},
	}
}
