package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/spf13/cobra"
)

// statusOptions are the flags of `loopx status`.
type statusOptions struct {
	goal string
}

// validate checks the flags alone (no project opened).
func (o *statusOptions) validate() error { return nil }

// runStatus summarises the goals (engine.Status) and renders them.
func (a *app) runStatus(_ context.Context, o *statusOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	st, err := e.Status(o.goal)
	if err != nil {
		return err
	}
	line := e.Pending().Line()
	return a.print(withPending(st, line), func(w io.Writer) {
		if line != "" {
			fmt.Fprintln(w, line)
		}
		render.StatusText(w, st)
	})
}

func (a *app) statusCmd() *cobra.Command {
	o := &statusOptions{}
	c := &cobra.Command{
		Use:   "status",
		Short: "Summarise goals: status, quota, todos, gates, last round",
		Example: `  loopx status
  loopx status --goal g1 --json
  loopx status --project /tmp/loopx-demo-123`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runStatus(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.goal, "goal", "", "only this goal")
	return c
}
