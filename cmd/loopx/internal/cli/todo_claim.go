package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

// leaseExitCodes is the exit-code paragraph of every lease command.
const leaseExitCodes = `Exit codes: 0 done (or a replay that changed nothing); 1 refused, nothing
changed (already_claimed with holder and expires_at, version_mismatch with
expected and actual, lease_lost, todo_done/todo_blocked/todo_cancelled,
depends_on_open, scope_conflict, gate_violation, role_mismatch, monitor_only,
for_other_agent, agent_not_on_goal, agent_mismatch: --agent names another
agent than the processes above this command run as); 2 usage (unknown todo or agent, TTL
outside 1s..24h, missing --expected-version).`

// parseTTL reads --ttl ("" = the default).
func parseTTL(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := engine.ParseDuration(s)
	if err != nil {
		return 0, usagef("--ttl %q: %v", s, err)
	}
	if d < lease.MinTTL || d > lease.MaxTTL {
		return 0, errs.New(errs.Usage, "bad_ttl", fmt.Sprintf("--ttl %s is out of range: from 1s to 24h", s))
	}
	return d, nil
}

// todoClaimOptions are the argument and flags of `loopx todo claim`.
type todoClaimOptions struct {
	lease.ClaimRequest
	ttl string
}

// validate checks the flags alone (no project opened): --ttl within
// 1s..24h.
func (o *todoClaimOptions) validate() (err error) {
	o.TTL, err = parseTTL(o.ttl)
	return err
}

// runTodoClaim claims the todo as the acting agent (engine.ClaimTodo).
func (a *app) runTodoClaim(ctx context.Context, o *todoClaimOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	e.Prepare(ctx, false, query.Claim) // before the identity check takes the lock
	if o.Agent, err = actAs(ctx, e, trust.ActRequest{Agent: o.Agent, What: "todo claim", Todo: o.Todo}); err != nil {
		return err
	}
	res, err := e.ClaimTodo(o.ClaimRequest)
	if err != nil {
		return err
	}
	return a.print(leaseDoc(res), func(w io.Writer) { renderLease(w, "claimed", res) })
}

func (a *app) todoClaimCmd() *cobra.Command {
	o := &todoClaimOptions{}
	c := &cobra.Command{
		Use:   "claim TODO --agent A [--ttl 45m] [--idempotency-key K]",
		Short: "Claim a todo: a lease with a version, an epoch and an absolute expiry",
		Long: `Claim takes a lease on a todo for an agent in one transaction: exactly one of
any number of concurrent claimants (in any process) wins; the others are
refused already_claimed with the holder and expires_at. The lease's version
grows by one on every change and never resets; its epoch grows with every new
holder; it expires at an absolute instant (now + --ttl, 1s..24h, default 45m).
An expired lease is claimable. A retried claim with the same
--idempotency-key and the same arguments returns the same lease; the key
reused for another todo or another --ttl exits 2 (idempotency_conflict),
nothing changed. Claims respect open gates,
depends_on, roles (review todos go to reviewers), monitor_only agents and
write scopes (two agents never hold todos whose --scope globs overlap).

` + leaseExitCodes,
		Example: `  loopx todo claim t-4f9a --agent codex --ttl 30m --json
  loopx todo claim t-4f9a --agent codex --idempotency-key run-17`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Todo = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runTodoClaim(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Agent, "agent", a.defaultAgent(), "the claiming agent (default $LOOPX_AGENT, else the agent the processes above run as); an agent acts only as itself")
	c.Flags().StringVar(&o.ttl, "ttl", "", "lease time to live, 1s..24h (default 45m)")
	c.Flags().StringVar(&o.IdempotencyKey, "idempotency-key", "", "a key that makes a retried claim return the same lease")
	return c
}

// leaseDoc is res as --json prints it (contract.LeaseResult).
func leaseDoc(res lease.Result) contract.LeaseResult {
	return contract.LeaseResultOf(res.Todo, res.Lease, res.Replayed, res.Previous)
}

func renderLease(w io.Writer, verb string, res lease.Result) {
	l := res.Lease
	if res.Replayed {
		verb = "unchanged (replay)"
	}
	if l.Released {
		fmt.Fprintf(w, "%s %s: released by %s, version %d, epoch %d\n", res.Todo.ID, verb, l.Holder, l.Version, l.Epoch)
		return
	}
	fmt.Fprintf(w, "%s %s: held by %s until %s, version %d, epoch %d\n", res.Todo.ID, verb, l.Holder,
		l.ExpiresAt.UTC().Format(time.RFC3339), l.Version, l.Epoch)
}
