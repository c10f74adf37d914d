package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/internal/frontend/gateanswer"
	"github.com/spf13/cobra"
)

// gateAnswerOptions are the flags and argument of `loopx gate answer`.
type gateAnswerOptions struct {
	in gates.Answer
	as string
}

// validate checks the flags alone (no project opened): a malformed --as
// is a usage error (exit 2).
func (o *gateAnswerOptions) validate() error {
	if o.as != "" && o.as != "human" && !strings.HasPrefix(o.as, "agent:") {
		return usagef(`--as %q: want "human" or "agent:ID"`, o.as)
	}
	o.in.Actor = o.as
	return nil
}

// runGateAnswer answers the gate through this command's channel
// (gateanswer.Answer: a human confirms at the controlling terminal).
func (a *app) runGateAnswer(ctx context.Context, o *gateAnswerOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	if o.in.Option == "" {
		g, err := e.Gate(o.in.Gate)
		if err != nil {
			return err
		}
		return usagef("gate answer needs --option: one of %s (gate %s: %s)", strings.Join(g.Options, ", "), o.in.Gate, g.Question)
	}
	g, err := gateanswer.Answer(ctx, e, o.in, a.caller(), a.terminal())
	if err != nil {
		return err
	}
	return a.print(contract.GateOf(g), func(w io.Writer) { fmt.Fprintf(w, "gate %s: %s\n", g.ID, g.Status) })
}

func (a *app) gateAnswerCmd() *cobra.Command {
	o := &gateAnswerOptions{}
	c := &cobra.Command{
		Use:   "answer GATE --option OPTION",
		Short: "Answer a gate",
		Long: `Answer a gate. The gate decision (data.loopx.gate.decision, the
gate_answer query; preview it with loopx decide gate-answer) is taken in the
transaction that records the answer: an unknown option, a closed gate, an
actor who is not an answerer, the agent that raised the gate, or a user
gate_answer policy's deny are refused, and nothing is recorded. The channel
rule: a human answers at a terminal (this command), never from inside an
agent round (LOOPX_ROUND or LOOPX_AGENT set) or from a process that
descends from an agent, and confirms by typing the gate id back on the
controlling terminal (an agent piping input cannot answer for a human); an
agent answers as itself (--as agent:ID, or LOOPX_AGENT), never as another
agent or as a human.

Exit codes: 0 recorded; 1 refused (closed gate, not an answerer, the raiser,
inside a round, no terminal or a wrong confirmation); 2 an unknown gate or
option, no --option (the gate's options are listed), or a malformed --as.`,
		Example: `  loopx gate answer g-4f9a --option approve --note "reviewed the diff"
  loopx gate answer g1/merge --option reject`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.in.Gate = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runGateAnswer(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.in.Option, "option", "", "the answer (one of the gate's options)")
	c.Flags().StringVar(&o.in.Note, "note", "", "a note kept with the answer")
	c.Flags().StringVar(&o.as, "as", "", `answer as "human" or "agent:ID" (default human, or $LOOPX_AGENT inside a round)`)
	return c
}
