package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// agentListOptions are the flags of `loopx agent list` (none of its own).
type agentListOptions struct{}

// validate checks the flags alone (no project opened).
func (o *agentListOptions) validate() error { return nil }

// runAgentList lists the agents (declared, registered, or only seen
// acting) with what makes each known, its registered goals and its
// heartbeat facts (engine.AgentInfos).
func (a *app) runAgentList(_ context.Context, _ *agentListOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	as, err := e.AgentInfos()
	if err != nil {
		return err
	}
	return a.print(as, func(w io.Writer) {
		rows := [][]string{}
		for _, x := range as {
			seen := ""
			if !x.LastSeenAt.IsZero() {
				seen = x.LastSeenAt.Format("2006-01-02T15:04:05Z")
			}
			lease := ""
			if l := x.CurrentLease; l != nil {
				lease = fmt.Sprintf("%s v%d until %s", l.Todo, l.Version, l.ExpiresAt)
				if n := len(x.Leases); n > 1 {
					lease += fmt.Sprintf(" (+%d)", n-1)
				}
			}
			rows = append(rows, []string{x.ID, x.Host, x.Role, x.Mode, x.Known, strings.Join(x.Goals, ","), seen, x.CurrentRound, lease})
		}
		printTable(w, []string{"ID", "HOST", "ROLE", "MODE", "KNOWN", "GOALS", "LAST SEEN", "ROUND", "LEASE"}, rows)
	})
}

func (a *app) agentListCmd() *cobra.Command {
	o := &agentListOptions{}
	return &cobra.Command{
		Use: "list", Short: "List agents: declared, registered or heartbeat only, registered goals, last seen, open round, live lease", Args: cobra.NoArgs,
		Example: "  loopx agent list --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runAgentList(cmd.Context(), o)
		},
	}
}
