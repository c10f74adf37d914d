package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/spf13/cobra"
)

func (a *app) quotaCmd() *cobra.Command {
	c := &cobra.Command{Use: "quota", Short: "Show quota usage"}
	c.AddCommand(a.quotaStatusCmd())
	return c
}

// quotaStatusOptions are the flags of `loopx quota status`.
type quotaStatusOptions struct {
	goal string
}

// validate checks the flags alone (no project opened).
func (o *quotaStatusOptions) validate() error { return nil }

// runQuotaStatus prints each goal's quota line.
func (a *app) runQuotaStatus(_ context.Context, o *quotaStatusOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	s, err := e.Status(o.goal)
	if err != nil {
		return err
	}
	out := map[string]*parts.QuotaSummary{}
	for _, g := range s.Goals {
		out[g.ID] = g.Quota
	}
	return a.print(out, func(w io.Writer) {
		for _, g := range s.Goals {
			fmt.Fprintf(w, "%s: %s\n", g.ID, render.QuotaLine(g.Quota))
		}
	})
}

func (a *app) quotaStatusCmd() *cobra.Command {
	o := &quotaStatusOptions{}
	c := &cobra.Command{
		Use: "status", Short: "Show each goal's quota: used/limit in the rolling window and when it resets", Args: cobra.NoArgs,
		Example: "  loopx quota status --goal g1 --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runQuotaStatus(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.goal, "goal", "", "only this goal")
	return c
}
