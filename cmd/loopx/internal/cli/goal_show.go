package cli

import (
	"context"
	"io"

	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/spf13/cobra"
)

// goalShowOptions are the argument of `loopx goal show`.
type goalShowOptions struct {
	goal string
}

// validate checks the argument alone (no project opened).
func (o *goalShowOptions) validate() error { return nil }

// runGoalShow prints one goal's status.
func (a *app) runGoalShow(_ context.Context, o *goalShowOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	st, err := e.Status(o.goal)
	if err != nil {
		return err
	}
	return a.print(st.Goals[0], func(w io.Writer) { render.StatusText(w, st) })
}

func (a *app) goalShowCmd() *cobra.Command {
	o := &goalShowOptions{}
	return &cobra.Command{
		Use: "show GOAL", Short: "Show one goal", Args: cobra.ExactArgs(1),
		Example: "  loopx goal show g1",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.goal = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runGoalShow(cmd.Context(), o)
		},
	}
}
