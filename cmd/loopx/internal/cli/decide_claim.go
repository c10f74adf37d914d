package cli

import (
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

func (a *app) decideClaimCmd() *cobra.Command {
	var p engine.ClaimPreview
	var explain bool
	c := &cobra.Command{
		Use:   "claim TODO --agent A [--op claim|transfer --from HOLDER]",
		Short: "May this agent hold this todo? (a preview of todo claim)",
		Long: `Decide the claim query (data.loopx.claim.decision) for an agent and a todo
over the current state, exactly as loopx todo claim decides it inside its
transaction, without claiming anything. --op transfer previews handing the
todo from --from (its holder) to --agent. allow, or deny with reasons:
todo_done / todo_blocked / todo_cancelled, not_agent_work, unknown_agent,
agent_not_on_goal, monitor_only, for_other_agent, role_mismatch,
already_claimed, depends_on_open, gate_violation, scope_conflict, or a user
claim policy's deny (package loopx.user.claim). The decision is appended to
.loopx/decisions.jsonl.

Exit codes: 0 allow; 1 deny; 2 usage error, an unknown todo, or a broken spec
or user policy (the decision is a deny); 3 the state store is unusable.`,
		Example: `  loopx decide claim t-4f9a --agent codex
  loopx decide claim t-4f9a --agent cursor --op transfer --from codex --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			p.Todo = args[0]
			d, derr := e.DecideClaim(cmd.Context(), p)
			if err := usageOnly(derr); err != nil {
				return err
			}
			if err := a.print(d, func(w io.Writer) { renderDecision(w, d, explain) }); err != nil {
				return err
			}
			return a.decisionExit(e, d, derr)
		},
	}
	f := c.Flags()
	f.StringVar(&p.Agent, "agent", "", "the agent that would hold the todo (required)")
	f.StringVar(&p.Op, "op", "claim", "claim or transfer")
	f.StringVar(&p.From, "from", "", "the current holder, for --op transfer")
	f.BoolVar(&explain, "explain", false, "also show the rule and spec field behind each reason, and the revisions")
	return c
}

func (a *app) decideGateAnswerCmd() *cobra.Command {
	var in engine.AnswerInput
	var as string
	var explain bool
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
			e, err := a.engine()
			if err != nil {
				return err
			}
			if as != "" && as != "human" && !strings.HasPrefix(as, "agent:") {
				return usagef(`--as %q: want "human" or "agent:ID"`, as)
			}
			in.Gate, in.Actor = args[0], as
			in.Channel = answerChannel(e, &in, a.stdin)
			d, derr := e.DecideAnswer(cmd.Context(), in)
			if err := usageOnly(derr); err != nil {
				return err
			}
			if err := a.print(d, func(w io.Writer) { renderDecision(w, d, explain) }); err != nil {
				return err
			}
			return a.decisionExit(e, d, derr)
		},
	}
	f := c.Flags()
	f.StringVar(&in.Option, "option", "", "the answer (required)")
	f.StringVar(&as, "as", "", `answer as "human" or "agent:ID" (default human, or $LOOPX_AGENT inside a round)`)
	f.BoolVar(&explain, "explain", false, "also show the rule and spec field behind each reason, and the revisions")
	_ = c.MarkFlagRequired("option")
	return c
}

// usageOnly returns err when it is a usage error (an unknown todo or gate,
// a bad flag): no decision was taken then.
func usageOnly(err error) error {
	if errs.Exit(err) == ExitUsage {
		return err
	}
	return nil
}
