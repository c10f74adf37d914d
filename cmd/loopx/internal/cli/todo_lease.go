package cli

import (
	"context"
	"io"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

// leaseOptions are the argument and flags of `loopx todo
// renew|release|transfer` (todo_renew.go, todo_release.go,
// todo_transfer.go): the same shape, a different engine call.
type leaseOptions struct {
	lease.Request
	// name is the command (renew, release, transfer), verb what its
	// answer says was done ("renewed").
	name, verb string
	ttl        string
	// expectedSet is whether --expected-version was given.
	expectedSet bool
	// call is the engine's mutation.
	call func(*engine.Engine, lease.Request) (lease.Result, error)
}

// validate checks the flags alone (no project opened): --ttl within
// 1s..24h, --expected-version given.
func (o *leaseOptions) validate() (err error) {
	if o.TTL, err = parseTTL(o.ttl); err != nil {
		return err
	}
	if !o.expectedSet {
		return errs.New(errs.Usage, "missing_expected_version", "todo "+o.name+" needs --expected-version (the lease version you hold; see loopx todo show)")
	}
	return nil
}

// runLease changes the lease as the acting agent and prints it.
func (a *app) runLease(ctx context.Context, o *leaseOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	if o.name == "transfer" {
		e.Prepare(ctx, false, query.Claim) // before the identity check takes the lock
	}
	if o.Agent, err = actAs(ctx, e, trust.ActRequest{Agent: o.Agent, What: "todo " + o.name, Todo: o.Todo}); err != nil {
		return err
	}
	res, err := o.call(e, o.Request)
	if err != nil {
		return err
	}
	return a.print(leaseDoc(res), func(w io.Writer) { renderLease(w, o.verb, res) })
}

// leaseCmd is the command of o (renew, release or transfer) with its
// texts; withTTL and withTo add --ttl and --to.
func (a *app) leaseCmd(o *leaseOptions, use, short, long, example string, withTTL, withTo bool) *cobra.Command {
	c := &cobra.Command{
		Use: use, Short: short, Long: long + "\n\n" + leaseExitCodes, Example: example,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Todo, o.expectedSet = args[0], cmd.Flags().Changed("expected-version")
			if err := o.validate(); err != nil {
				return err
			}
			return a.runLease(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Agent, "agent", a.defaultAgent(), "the holding agent (default $LOOPX_AGENT, else the agent the processes above run as); an agent acts only as itself")
	c.Flags().Uint64Var(&o.ExpectedVersion, "expected-version", 0, "the lease version you hold (required)")
	if withTTL {
		c.Flags().StringVar(&o.ttl, "ttl", "", "new time to live, 1s..24h (default: the lease's own)")
	}
	if withTo {
		c.Flags().StringVar(&o.To, "to", "", "the new holder (required)")
	}
	return c
}
