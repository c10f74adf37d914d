package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/spf13/cobra"
)

// roundShowOptions are the argument of `loopx round show`.
type roundShowOptions struct {
	round string
}

// validate checks the argument alone (no project opened).
func (o *roundShowOptions) validate() error { return nil }

// runRoundShow prints one round (engine.Round).
func (a *app) runRoundShow(_ context.Context, o *roundShowOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	r, err := e.Round(o.round)
	if err != nil {
		return err
	}
	return a.print(contract.RoundOf(r), func(w io.Writer) {
		fmt.Fprintf(w, "round %s (%s) by %s on %s: %s %s charged=%v\n", r.ID, r.Goal, r.Agent, r.Todo, r.Status, r.Outcome, r.Charged)
	})
}

func (a *app) roundShowCmd() *cobra.Command {
	o := &roundShowOptions{}
	return &cobra.Command{
		Use: "show ROUND", Short: "Show one round", Args: cobra.ExactArgs(1),
		Example: "  loopx round show r-1a2b --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.round = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runRoundShow(cmd.Context(), o)
		},
	}
}
