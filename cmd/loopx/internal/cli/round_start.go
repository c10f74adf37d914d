package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

func (a *app) roundCmd() *cobra.Command {
	c := &cobra.Command{Use: "round", Short: "Start and finish rounds (bounded agent turns)"}
	c.AddCommand(a.roundStartCmd(), a.roundFinishCmd(), a.roundShowCmd())
	return c
}

// roundStartOptions are the flags of `loopx round start`.
type roundStartOptions struct {
	goal, agent string
	leaseTTL    time.Duration
	// leaseTTLSet says --lease-ttl was given (then 0s is out of range).
	leaseTTLSet bool
}

// validate checks the flags alone (no project opened): --goal is
// required, --lease-ttl within 1s..24h. (--agent may come from the
// processes above: run checks it.)
func (o *roundStartOptions) validate() error {
	if o.goal == "" {
		return usagef("round start needs --goal and --agent")
	}
	return checkLeaseTTLFlag(o.leaseTTL, o.leaseTTLSet)
}

// runRoundStart decides should_run and, on run, claims the todo and opens
// a round (engine.StartRound); exit 1 when no round was opened.
func (a *app) runRoundStart(ctx context.Context, o *roundStartOptions) error {
	a.leaseTTL = o.leaseTTL
	e, err := a.engine()
	if err != nil {
		return err
	}
	e.Prepare(ctx, false, query.ShouldRun, query.Claim) // before the identity check takes the lock
	agent, err := actAs(ctx, e, trust.ActRequest{Agent: o.agent, What: "round start", Goal: o.goal})
	if err != nil {
		return err
	}
	if agent == "" {
		return usagef("round start needs --goal and --agent")
	}
	res, err := e.StartRound(ctx, o.goal, agent)
	if err != nil {
		return err
	}
	if err := a.print(res.Contract(), func(w io.Writer) {
		if res.Round != nil {
			fmt.Fprintf(w, "round %s started: todo %s %q\n", res.Round.ID, res.Todo.ID, res.Todo.Title)
			return
		}
		renderDecision(w, res.Decision, false)
		if res.Gate != nil {
			fmt.Fprintf(w, "raised gate %s: %s\n", res.Gate.ID, res.Gate.Question)
		}
	}); err != nil {
		return err
	}
	if res.Round == nil {
		return reported(errs.No)
	}
	return nil
}

func (a *app) roundStartCmd() *cobra.Command {
	o := &roundStartOptions{}
	c := &cobra.Command{
		Use:   "start --goal G --agent A",
		Short: "Decide should-run and, on run, claim the todo and open a round",
		Long: `Start decides should_run; on run it claims the selected todo (a 45-minute
lease) and opens a round in one transaction, printing the round id.
--agent defaults to $LOOPX_AGENT, else the agent the processes above run
as; an agent acts only as itself (the processes above this command run as
another agent, or as several: refused, agent_mismatch, audited).
Refused by an open gate (wait_human, gate_open), a start is a poll: each
agent's first poll under a gate is audited (gate.waited, first_poll),
the next ones only count in its poll record of the gate (loopx gate show).
Exit 0 when a round was opened; 1 when the decision was not run, or
agent_mismatch; 2 usage.`,
		Example: `  loopx round start --goal g1 --agent a1 --json
  loopx gate show g-4f9a    # after refused starts: "polled 5× by a1 from … to …"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.leaseTTLSet = cmd.Flags().Changed("lease-ttl")
			if err := o.validate(); err != nil {
				return err
			}
			return a.runRoundStart(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.goal, "goal", "", "the goal (required)")
	c.Flags().StringVar(&o.agent, "agent", a.defaultAgent(), "the agent (default $LOOPX_AGENT, else the agent the processes above run as)")
	c.Flags().DurationVar(&o.leaseTTL, "lease-ttl", 0, "the lease the round takes on its todo (1s to 24h; default 45m)")
	return c
}

// checkLeaseTTLFlag checks --lease-ttl alone, before any decision: given
// (set) or not 0, it is within lease.MinTTL..lease.MaxTTL (1s..24h); not
// given, the lease takes its default. Errors: errs.Usage bad_ttl naming
// the flag.
func checkLeaseTTLFlag(ttl time.Duration, set bool) error {
	if (set || ttl != 0) && (ttl < lease.MinTTL || ttl > lease.MaxTTL) {
		return errs.New(errs.Usage, "bad_ttl", fmt.Sprintf("--lease-ttl %s is out of range: from 1s to 24h", ttl))
	}
	return nil
}
