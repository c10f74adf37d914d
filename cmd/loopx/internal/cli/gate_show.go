package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// gateShowOptions are the arguments of `loopx gate show`.
type gateShowOptions struct {
	gate string
}

// validate checks the arguments alone: cobra already requires the one gate id.
func (o *gateShowOptions) validate() error { return nil }

// runGateShow prints one gate with its answer.
func (a *app) runGateShow(_ context.Context, o *gateShowOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	g, err := e.Gate(o.gate)
	if err != nil {
		return err
	}
	return a.print(g, func(w io.Writer) {
		fmt.Fprintf(w, "gate %s (%s): %s\n  question: %s\n  options: %s\n  answerers: %s\n  raised by %s at %s\n",
			g.ID, g.Goal, g.Status, g.Question, strings.Join(g.Options, ", "), strings.Join(g.Answerers, ", "), g.RaisedBy, g.RaisedAt.Format("2006-01-02T15:04:05Z"))
		if g.Answer != nil {
			fmt.Fprintf(w, "  answered %s by %s at %s %s\n", g.Answer.Option, g.Answer.By, g.Answer.At.Format("2006-01-02T15:04:05Z"), g.Answer.Note)
		}
	})
}

func (a *app) gateShowCmd() *cobra.Command {
	o := &gateShowOptions{}
	return &cobra.Command{
		Use: "show GATE", Short: "Show one gate", Args: cobra.ExactArgs(1),
		Example: "  loopx gate show g-4f9a",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.gate = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runGateShow(cmd.Context(), o)
		},
	}
}
