package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/spf13/cobra"
)

// goalStatusOptions are the argument and flags of `loopx goal
// pause|resume|done|archive` (one command per status, built by
// goalStatusCmd).
type goalStatusOptions struct {
	// name is the command, status the goal status it sets.
	name, status string
	goal, reason string
}

// validate checks the flags alone (no project opened).
func (o *goalStatusOptions) validate() error { return nil }

// runGoalStatus sets the goal's status as the acting agent or human
// (engine.SetGoalStatus). Pausing only narrows, and an agent may do it;
// resuming, finishing or archiving a goal is a human's (the built-in
// channel rule, data.loopx.repair.decision): an agent resuming a goal a
// human paused, or closing one (its monitors with it), is refused, exit 1,
// audited as goal.status_refused.
func (a *app) runGoalStatus(ctx context.Context, o *goalStatusOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	if o.status != records.GoalPaused {
		if err := a.humanOnly(ctx, e, "goal "+o.name, true, "goal.status_refused", o.goal); err != nil {
			return err
		}
	}
	by, err := a.actor(ctx, e, "goal "+o.name, o.goal)
	if err != nil {
		return err
	}
	st, err := e.SetGoalStatus(o.goal, o.status, o.reason, by)
	if err != nil {
		return err
	}
	return a.print(contract.GoalStateOf(st), func(w io.Writer) { fmt.Fprintf(w, "goal %s: %s\n", st.ID, st.Status) })
}

func (a *app) goalStatusCmd(name, status, short string) *cobra.Command {
	o := &goalStatusOptions{name: name, status: status}
	c := &cobra.Command{
		Use: name + " GOAL", Short: short, Args: cobra.ExactArgs(1),
		Example: fmt.Sprintf("  loopx goal %s g1 --reason \"why\"", name),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.goal = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runGoalStatus(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.reason, "reason", "", "why")
	return c
}
