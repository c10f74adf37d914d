package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/specs"
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

// todoLeaseCmds are `todo claim|renew|release|transfer` (design §9).
func (a *app) todoLeaseCmds() []*cobra.Command {
	return []*cobra.Command{a.todoClaimCmd(), a.todoRenewCmd(), a.todoReleaseCmd(), a.todoTransferCmd()}
}

// parseTTL reads --ttl ("" = the default).
func parseTTL(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := specs.ParseDuration(s)
	if err != nil {
		return 0, usagef("--ttl %q: %v", s, err)
	}
	if d < engine.MinLeaseTTL || d > engine.MaxLeaseTTL {
		return 0, errs.New(errs.Usage, "bad_ttl", fmt.Sprintf("--ttl %s is out of range: from 1s to 24h", s))
	}
	return d, nil
}

// defaultAgent is the default of an acting --agent flag: $LOOPX_AGENT, a
// name only, checked like the flag against the processes above the
// command (actAs).
func defaultAgent() string { return os.Getenv("LOOPX_AGENT") }

// actAs returns the agent this command acts as: in.Agent is the agent it
// names (its --agent, by default $LOOPX_AGENT), checked against the
// processes above it by the identity rule (engine.ActAs,
// data.loopx.gate.acting); "" when it names none and no agent is above it.
// Errors: errs.No agent_mismatch (exit 1), audited.
func actAs(ctx context.Context, e *engine.Engine, in engine.ActInput) (string, error) {
	in.Mode = "act"
	return e.ActAs(ctx, in)
}

func (a *app) todoClaimCmd() *cobra.Command {
	var req engine.ClaimRequest
	var ttl string
	c := &cobra.Command{
		Use:   "claim TODO --agent A [--ttl 45m] [--idempotency-key K]",
		Short: "Claim a todo: a lease with a version, an epoch and an absolute expiry",
		Long: `Claim takes a lease on a todo for an agent in one transaction: exactly one of
any number of concurrent claimants (in any process) wins; the others are
refused already_claimed with the holder and expires_at. The lease's version
grows by one on every change and never resets; its epoch grows with every new
holder; it expires at an absolute instant (now + --ttl, 1s..24h, default 45m).
An expired lease is claimable. A retried claim with the same
--idempotency-key returns the same lease. Claims respect open gates,
depends_on, roles (review todos go to reviewers), monitor_only agents and
write scopes (two agents never hold todos whose --scope globs overlap).

` + leaseExitCodes,
		Example: `  loopx todo claim t-4f9a --agent codex --ttl 30m --json
  loopx todo claim t-4f9a --agent codex --idempotency-key run-17`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := parseTTL(ttl)
			if err != nil {
				return err
			}
			e, err := a.engine()
			if err != nil {
				return err
			}
			req.Todo, req.TTL = args[0], d
			if req.Agent, err = actAs(cmd.Context(), e, engine.ActInput{Agent: req.Agent, What: "todo claim", Todo: req.Todo}); err != nil {
				return err
			}
			res, err := e.ClaimTodo(req)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { renderLease(w, "claimed", res) })
		},
	}
	c.Flags().StringVar(&req.Agent, "agent", defaultAgent(), "the claiming agent (default $LOOPX_AGENT, else the agent the processes above run as); an agent acts only as itself")
	c.Flags().StringVar(&ttl, "ttl", "", "lease time to live, 1s..24h (default 45m)")
	c.Flags().StringVar(&req.IdempotencyKey, "idempotency-key", "", "a key that makes a retried claim return the same lease")
	return c
}

// leaseCmd builds renew, release and transfer.
func (a *app) leaseCmd(use, short, long, example, verb string, withTTL, withTo bool,
	run func(*engine.Engine, engine.LeaseRequest) (engine.LeaseResult, error)) *cobra.Command {
	var req engine.LeaseRequest
	var ttl string
	c := &cobra.Command{
		Use: use, Short: short, Long: long + "\n\n" + leaseExitCodes, Example: example,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := parseTTL(ttl)
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("expected-version") {
				return errs.New(errs.Usage, "missing_expected_version", "todo "+strings.Fields(use)[0]+" needs --expected-version (the lease version you hold; see loopx todo show)")
			}
			e, err := a.engine()
			if err != nil {
				return err
			}
			req.Todo, req.TTL = args[0], d
			if req.Agent, err = actAs(cmd.Context(), e, engine.ActInput{Agent: req.Agent, What: "todo " + strings.Fields(use)[0], Todo: req.Todo}); err != nil {
				return err
			}
			res, err := run(e, req)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { renderLease(w, verb, res) })
		},
	}
	c.Flags().StringVar(&req.Agent, "agent", defaultAgent(), "the holding agent (default $LOOPX_AGENT, else the agent the processes above run as); an agent acts only as itself")
	c.Flags().Uint64Var(&req.ExpectedVersion, "expected-version", 0, "the lease version you hold (required)")
	if withTTL {
		c.Flags().StringVar(&ttl, "ttl", "", "new time to live, 1s..24h (default: the lease's own)")
	}
	if withTo {
		c.Flags().StringVar(&req.To, "to", "", "the new holder (required)")
	}
	return c
}

func (a *app) todoRenewCmd() *cobra.Command {
	return a.leaseCmd("renew TODO --agent A --expected-version N [--ttl 45m]",
		"Renew a held lease: a new expiry, version +1",
		`Renew extends the agent's live lease to now + --ttl (default: the TTL it was
granted) as a compare-and-swap on --expected-version. An expired, released
or moved lease is lost (lease_lost): claim the todo again instead.`,
		"  loopx todo renew t-4f9a --agent codex --expected-version 3 --ttl 30m",
		"renewed", true, false, (*engine.Engine).RenewLease)
}

func (a *app) todoReleaseCmd() *cobra.Command {
	return a.leaseCmd("release TODO --agent A --expected-version N",
		"Release a held lease: the todo is claimable at once",
		`Release ends the agent's lease, leaving a tombstone (version +1; versions
never reset) and reopening the todo. Releasing again with the same
--expected-version returns the tombstone and changes nothing.`,
		"  loopx todo release t-4f9a --agent codex --expected-version 4",
		"released", false, false, (*engine.Engine).ReleaseLease)
}

func (a *app) todoTransferCmd() *cobra.Command {
	return a.leaseCmd("transfer TODO --agent A --to B --expected-version N [--ttl 45m]",
		"Hand a held lease to another agent: version +1, epoch +1",
		`Transfer hands the agent's live lease to --to, who must be able to claim the
todo (on the goal, role, mode, no blocking gate, no scope conflict). The
old holder's round on the todo can no longer finish (lease_lost).`,
		"  loopx todo transfer t-4f9a --agent codex --to claude --expected-version 3",
		"transferred", true, true, (*engine.Engine).TransferLease)
}

func renderLease(w io.Writer, verb string, res engine.LeaseResult) {
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
