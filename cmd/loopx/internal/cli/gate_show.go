package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/kernel/records"
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
	polls, err := e.GatePolls(g.Goal)
	if err != nil {
		return err
	}
	row := render.GatesWithPolls([]records.Gate{g}, polls)[0]
	return a.print(row, func(w io.Writer) {
		fmt.Fprintf(w, "gate %s (%s): %s\n  question: %s\n  options: %s\n  answerers: %s\n  raised by %s at %s\n",
			g.ID, g.Goal, g.Status, g.Question, strings.Join(g.Options, ", "), strings.Join(g.Answerers, ", "), g.RaisedBy, g.RaisedAt.Format("2006-01-02T15:04:05Z"))
		if g.Answer != nil {
			fmt.Fprintf(w, "  answered %s by %s at %s %s\n", g.Answer.Option, g.Answer.By, g.Answer.At.Format("2006-01-02T15:04:05Z"), g.Answer.Note)
		}
		for _, p := range row.Polls {
			fmt.Fprintf(w, "  %s\n", render.PollText(p))
		}
	})
}

func (a *app) gateShowCmd() *cobra.Command {
	o := &gateShowOptions{}
	return &cobra.Command{
		Use: "show GATE", Short: "Show one gate", Args: cobra.ExactArgs(1),
		Long: `Show prints one gate: its question, options, answerers, who raised it
and when, its answer, and the counted polls of ` + "`loopx round start`" + ` under
it ("polled 5× by cursor from … to …": an agent host asking again
while the gate held it back; only each agent's first poll is an audit
event). --json prints the gate with "polls": [{goal, gate, agent, count,
first_at, last_at}].`,
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
