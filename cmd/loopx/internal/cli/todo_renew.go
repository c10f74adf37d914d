package cli

import (
	"github.com/loopx-dev/loopx/engine"
	"github.com/spf13/cobra"
)

// todoRenewCmd is `loopx todo renew` (leaseOptions, todo_lease.go).
func (a *app) todoRenewCmd() *cobra.Command {
	o := &leaseOptions{name: "renew", verb: "renewed", call: (*engine.Engine).RenewLease}
	return a.leaseCmd(o, "renew TODO --agent A --expected-version N [--ttl 45m]",
		"Renew a held lease: a new expiry, version +1",
		`Renew extends the agent's live lease to now + --ttl (default: the TTL it was
granted) as a compare-and-swap on --expected-version. An expired, released
or moved lease is lost (lease_lost): claim the todo again instead.`,
		"  loopx todo renew t-4f9a --agent codex --expected-version 3 --ttl 30m", true, false)
}
