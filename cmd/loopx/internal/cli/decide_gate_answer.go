package cli

import (
	"context"
	"strings"

	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/spf13/cobra"
)

// decideGateAnswerOptions are the flags and argument of `loopx decide
// gate-answer`.
type decideGateAnswerOptions struct {
	gate, option, note, as string
	explain                bool
}

// validate checks the flags alone (no project opened): --as is "human" or
// "agent:ID".
func (o *decideGateAnswerOptions) validate() error {
	if o.as != "" && o.as != "human" && !strings.HasPrefix(o.as, "agent:") {
		return usagef(`--as %q: want "human" or "agent:ID"`, o.as)
	}
	return nil
}

// runDecideGateAnswer previews the gate_answer decision with the facts of
// this command's channel (engine.DecideAnswer) and prints it
// (printPreview).
func (a *app) runDecideGateAnswer(ctx context.Context, o *decideGateAnswerOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	in := gates.Answer{Gate: o.gate, Option: o.option, Note: o.note, Actor: o.as}
	in.Channel = a.answerChannel(e, &in)
	d, derr := e.DecideAnswer(ctx, in)
	return a.printPreview(e, d, derr, o.explain)
}

func (a *app) decideGateAnswerCmd() *cobra.Command {
	o := &decideGateAnswerOptions{}
	c := &cobra.Command{
		Use:   "gate-answer GATE --option OPTION [--as human|agent:ID]",
		Short: "May this answer be recorded? (a preview of gate answer)",
		Long: `Decide the gate_answer query (data.loopx.gate.decision) for an answer to a
gate, with the facts of the channel this command runs in (as loopx gate
answer gathers them: a human at a terminal, or an agent as itself), without
recording anything and without asking for a confirmation. allow, or deny
with reasons: gate_closed, unknown_option, self_answer_forbidden,
not_answerer, bad_channel, confirmation_required, and a user gate_answer
policy's deny (package loopx.user.gate_answer). A human answer at a
terminal that only lacks its typed confirmation previews as deny with the
single reason confirmation_pending: loopx gate answer would ask for it. The
decision is appended to .loopx/decisions.jsonl.

Exit codes: 0 allow; 1 deny; 2 usage error, an unknown gate, or a broken
spec or user policy (the decision is a deny); 3 the state store is unusable.`,
		Example: `  loopx decide gate-answer g-4f9a --option approve
  loopx decide gate-answer g1/review --option approve --as agent:claude --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.gate = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runDecideGateAnswer(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.option, "option", "", "the answer (required)")
	f.StringVar(&o.note, "note", "", "the note the answer would carry (a user gate_answer policy may read it)")
	f.StringVar(&o.as, "as", "", `answer as "human" or "agent:ID" (default human, or $LOOPX_AGENT inside a round)`)
	f.BoolVar(&o.explain, "explain", false, "also show the rule and spec field behind each reason, and the revisions")
	_ = c.MarkFlagRequired("option")
	return c
}
