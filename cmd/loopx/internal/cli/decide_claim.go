package cli

import (
	"context"

	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/spf13/cobra"
)

// decideClaimOptions are the flags and argument of `loopx decide claim`.
type decideClaimOptions struct {
	lease.Preview
	explain bool
}

// validate checks the flags alone (no project opened); the engine checks
// --op and --from against the todo (usage errors, exit 2).
func (o *decideClaimOptions) validate() error { return nil }

// runDecideClaim previews the claim decision (engine.DecideClaim) and
// prints it (printPreview).
func (a *app) runDecideClaim(ctx context.Context, o *decideClaimOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	d, derr := e.DecideClaim(ctx, o.Preview)
	return a.printPreview(e, d, derr, o.explain)
}

func (a *app) decideClaimCmd() *cobra.Command {
	o := &decideClaimOptions{}
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
			o.Todo = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runDecideClaim(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Agent, "agent", "", "the agent that would hold the todo (required)")
	f.StringVar(&o.Op, "op", "claim", "claim or transfer")
	f.StringVar(&o.From, "from", "", "the current holder, for --op transfer")
	f.BoolVar(&o.explain, "explain", false, "also show the rule and spec field behind each reason, and the revisions")
	return c
}
