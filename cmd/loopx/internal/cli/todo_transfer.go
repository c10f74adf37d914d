package cli

import (
	"github.com/loopx-dev/loopx/engine"
	"github.com/spf13/cobra"
)

// todoTransferCmd is `loopx todo transfer` (leaseOptions, todo_lease.go).
func (a *app) todoTransferCmd() *cobra.Command {
	o := &leaseOptions{name: "transfer", verb: "transferred", call: (*engine.Engine).TransferLease}
	return a.leaseCmd(o, "transfer TODO --agent A --to B --expected-version N [--ttl 45m]",
		"Hand a held lease to another agent: version +1, epoch +1",
		`Transfer hands the agent's live lease to --to, who must be able to claim the
todo (on the goal, role, mode, no blocking gate, no scope conflict). The
old holder's round on the todo can no longer finish (lease_lost).`,
		"  loopx todo transfer t-4f9a --agent codex --to claude --expected-version 3", true, true)
}
