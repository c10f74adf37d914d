package cli

import (
	"context"
	"fmt"
	"github.com/loopx-dev/loopx/engine"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/spf13/cobra"
)

// roundFinishOptions are the flags and argument of `loopx round finish`.
type roundFinishOptions struct {
	rounds.FinishRequest
	// round is ROUND, else $LOOPX_ROUND.
	round    string
	evidence []string
}

// validate checks the flags alone (no project opened): which round, and
// every --evidence as KIND:STATUS:SUMMARY.
func (o *roundFinishOptions) validate() error {
	if o.round == "" {
		return usagef("which round? give ROUND or set LOOPX_ROUND")
	}
	o.Evidence = nil
	for _, s := range o.evidence {
		ev, err := parseEvidence(s)
		if err != nil {
			return err
		}
		o.Evidence = append(o.Evidence, ev)
	}
	return nil
}

// runRoundFinish settles the round as the acting agent
// (engine.FinishRound) and prints its receipt.
func (a *app) runRoundFinish(ctx context.Context, o *roundFinishOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	// Before the identity check takes the lock: a charged or done finish
	// decides claim whatever the gates (an agent no longer known is
	// refused), others only under an open gate. Not prepared by then, the
	// finish would let the store go, compile and open it again.
	e.Prepare(ctx, !engine.FinishDecidesClaim(o.FinishRequest), query.Claim)
	if o.Agent, err = actAs(ctx, e, trust.ActRequest{Agent: o.Agent, What: "round finish", Round: o.round}); err != nil {
		return err
	}
	rc, err := e.FinishRound(ctx, o.round, o.FinishRequest)
	if err != nil {
		return err
	}
	return a.print(rc.Contract(), func(w io.Writer) {
		what := "finished"
		if rc.Replayed {
			what = "was already finished"
		}
		fmt.Fprintf(w, "round %s %s: %s, charged %v\n", rc.Round.ID, what, rc.Round.Outcome, rc.Charged)
		if rc.Gate != nil {
			fmt.Fprintf(w, "raised gate %s: %s\n", rc.Gate.ID, rc.Gate.Question)
		}
	})
}

// parseEvidence reads --evidence KIND:STATUS:SUMMARY.
func parseEvidence(s string) (records.Evidence, error) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 || parts[2] == "" {
		return records.Evidence{}, usagef("--evidence %q: want KIND:STATUS:SUMMARY", s)
	}
	return records.Evidence{Kind: parts[0], Status: parts[1], Summary: parts[2]}, nil
}

func (a *app) roundFinishCmd() *cobra.Command {
	o := &roundFinishOptions{}
	c := &cobra.Command{
		Use:   "finish ROUND --outcome OUTCOME",
		Short: "Settle a round: outcome, evidence, handoff, todo, charge — in one transaction",
		Long: `Finish settles a round in one transaction. Outcomes: progress and failed are
charged (one round, plus --tokens and --cost-usd); no_change, preflight_failed
and dry_run are not. Finishing a finished round prints the stored receipt and
charges nothing. ROUND defaults to $LOOPX_ROUND. The finishing agent is
--agent (default $LOOPX_AGENT), else the agent the processes above run as;
an agent acts only as itself and finishes only its own rounds.

Exit codes: 0 settled; 1 refused (lease lost, not this agent's round,
agent_mismatch: the processes above run as another agent); 2 an unknown
round or outcome.`,
		Example: `  loopx round finish r-1a2b --outcome progress --done --summary "added the guide" \
      --evidence "test:pass:go test ./..."  --handoff "next: review the guide"
  loopx round finish --outcome no_change --result-hash sha256:abc`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.round = a.getenv("LOOPX_ROUND")
			if len(args) == 1 {
				o.round = args[0]
			}
			if err := o.validate(); err != nil {
				return err
			}
			return a.runRoundFinish(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Outcome, "outcome", "", "progress, failed, no_change, preflight_failed or dry_run")
	f.StringVar(&o.Summary, "summary", "", "what the round did")
	f.Int64Var(&o.Tokens, "tokens", 0, "model tokens the round used")
	f.Float64Var(&o.CostUSD, "cost-usd", 0, "cost of the round in US dollars")
	f.BoolVar(&o.Done, "done", false, "mark the round's todo done")
	f.StringVar(&o.ResultHash, "result-hash", "", "a monitor poll's result hash (same as last time = no_change)")
	f.StringArrayVar(&o.evidence, "evidence", nil, `evidence as KIND:STATUS:SUMMARY (e.g. "test:pass:go test ./...")`)
	f.StringVar(&o.Handoff, "handoff", "", "what the next round must know")
	f.StringVar(&o.NextTodo, "next-todo", "", "add a successor todo with this title")
	f.StringVar(&o.NextFor, "for", "", "the agent the successor todo is for")
	f.StringVar(&o.Agent, "agent", a.defaultAgent(), "the finishing agent (must be the round's; default $LOOPX_AGENT, else the agent the processes above run as)")
	f.Uint64Var(&o.ExpectedVersion, "expected-version", 0, "the lease version the round holds (version_mismatch otherwise; 0 = not checked)")
	return c
}
