package cli

import (
	"github.com/loopx-dev/loopx/engine"
	"github.com/spf13/cobra"
)

// todoReleaseCmd is `loopx todo release` (leaseOptions, todo_lease.go).
func (a *app) todoReleaseCmd() *cobra.Command {
	o := &leaseOptions{name: "release", verb: "released", call: (*engine.Engine).ReleaseLease}
	return a.leaseCmd(o, "release TODO --agent A --expected-version N",
		"Release a held lease: the todo is claimable at once",
		`Release ends the agent's lease, leaving a tombstone (version +1; versions
never reset) and reopening the todo. Releasing again with the same
--expected-version returns the tombstone and changes nothing.`,
		"  loopx todo release t-4f9a --agent codex --expected-version 4", false, false)
}
