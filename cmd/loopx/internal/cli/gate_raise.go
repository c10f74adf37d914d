package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/spf13/cobra"
)

// gateRaiseOptions are the flags of `loopx gate raise`.
type gateRaiseOptions struct {
	in      gates.Input
	expires string
}

// validate checks the flags alone (no project opened): usage errors exit 2.
func (o *gateRaiseOptions) validate() error {
	if o.expires != "" {
		d, err := engine.ParseDuration(o.expires)
		if err != nil {
			return usagef("--expires-after %q: %v", o.expires, err)
		}
		o.in.ExpiresAfter = d
	}
	return nil
}

// runGateRaise raises the gate as the acting caller and prints it.
func (a *app) runGateRaise(ctx context.Context, o *gateRaiseOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	in := o.in
	if in.By, err = a.actor(ctx, e, "gate raise", in.Goal); err != nil {
		return err
	}
	g, err := e.RaiseGate(in)
	if err != nil {
		return err
	}
	return a.print(contract.GateOf(g), func(w io.Writer) { fmt.Fprintf(w, "raised gate %s: %s %v\n", g.ID, g.Question, g.Options) })
}

func (a *app) gateRaiseCmd() *cobra.Command {
	o := &gateRaiseOptions{}
	c := &cobra.Command{
		Use:   "raise --goal G --question TEXT",
		Short: "Raise a gate: a concrete question a named answerer must answer",
		Long: `Raise a runtime gate. With no scope flag it blocks the whole goal
(should-run answers wait_human for every agent); --blocks-todo blocks only one
todo (other todos keep running) and --blocks-agent only one agent.

The question and the options are one line of text each, at most 1,000
characters (exit 2 over that): a control
character, an escape sequence or a bidirectional override in them is
refused (exit 2), so that no question can act on the answering human's
terminal.`,
		Example: `  loopx gate raise --goal g1 --question "Merge the v2 branch into main?"
  loopx gate raise --goal g1 --question "Deploy to staging now?" --options yes,no --blocks-todo t-4f9a`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runGateRaise(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.in.Goal, "goal", "", "the goal (required)")
	f.StringVar(&o.in.Question, "question", "", "the concrete question (required)")
	f.StringSliceVar(&o.in.Options, "options", nil, "the answers (default approve,reject)")
	f.StringSliceVar(&o.in.Answerers, "answerers", nil, `who may answer: human or agent:ID, a declared or registered agent (default human)`)
	f.StringVar(&o.in.BlocksTodo, "blocks-todo", "", "block only this todo")
	f.StringVar(&o.in.BlocksAgent, "blocks-agent", "", "block only this agent")
	f.StringSliceVar(&o.in.Guards, "guards", nil, "block only these actions (e.g. git.push,git.merge)")
	f.StringVar(&o.expires, "expires-after", "", "close the gate after this long (e.g. 72h)")
	f.StringVar(&o.in.OnExpiry, "on-expiry", "", "the option applied on expiry")
	return c
}
