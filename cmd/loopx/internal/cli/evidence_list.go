package cli

import (
	"context"
	"io"

	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/spf13/cobra"
)

// evidenceListOptions are the flags of `loopx evidence list`.
type evidenceListOptions struct {
	goal  string
	limit int
}

// validate checks the flags alone (no project opened): --limit is not
// negative; the engine checks --goal.
func (o *evidenceListOptions) validate() error {
	if o.limit < 0 {
		return usagef("--limit %d must not be negative", o.limit)
	}
	return nil
}

// runEvidenceList lists the goal's evidence, newest first.
func (a *app) runEvidenceList(_ context.Context, o *evidenceListOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	evs, err := e.Evidence(o.goal, o.limit)
	if err != nil {
		return err
	}
	return a.print(contract.Evidences(evs), func(w io.Writer) {
		rows := [][]string{}
		for _, x := range evs {
			rows = append(rows, []string{x.ID, x.CreatedAt.Format("2006-01-02T15:04:05Z"), x.Kind, x.Status, x.Summary})
		}
		printTable(w, []string{"ID", "AT", "KIND", "STATUS", "SUMMARY"}, rows)
	})
}

func (a *app) evidenceListCmd() *cobra.Command {
	o := &evidenceListOptions{}
	c := &cobra.Command{
		Use: "list --goal G", Short: "List evidence, newest first", Args: cobra.NoArgs,
		Example: "  loopx evidence list --goal g1 --limit 10",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runEvidenceList(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.goal, "goal", "", "the goal (required)")
	c.Flags().IntVar(&o.limit, "limit", 0, "at most this many (0 = all)")
	return c
}
