package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/spf13/cobra"
)

// gateListOptions are the flags of `loopx gate list`.
type gateListOptions struct {
	goal, status string
}

// validate checks the flags alone: any goal and status filter nothing out
// of turn, so there is nothing to refuse before the project is opened.
func (o *gateListOptions) validate() error { return nil }

// runGateList lists the gates that pass the filters.
func (a *app) runGateList(_ context.Context, o *gateListOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	gs, err := e.Gates(o.goal, o.status)
	if err != nil {
		return err
	}
	return a.print(gs, func(w io.Writer) {
		if len(gs) == 0 {
			fmt.Fprintln(w, "no gates")
			return
		}
		printTable(w, []string{"ID", "GOAL", "STATUS", "SCOPE", "QUESTION"}, gateRows(gs))
	})
}

// gateRows are the table rows of gs: id, goal, status, scope, question.
func gateRows(gs []engine.Gate) [][]string {
	rows := [][]string{}
	for _, g := range gs {
		scope := g.ScopeKind
		if len(g.ScopeTodos) > 0 {
			scope += ":" + strings.Join(g.ScopeTodos, ",")
		}
		if len(g.ScopeAgents) > 0 {
			scope += ":" + strings.Join(g.ScopeAgents, ",")
		}
		rows = append(rows, []string{g.ID, g.Goal, g.Status, scope, g.Question})
	}
	return rows
}

func (a *app) gateListCmd() *cobra.Command {
	o := &gateListOptions{}
	c := &cobra.Command{
		Use: "list", Short: "List gates", Args: cobra.NoArgs,
		Example: "  loopx gate list --goal g1 --status open --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runGateList(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.goal, "goal", "", "only this goal")
	c.Flags().StringVar(&o.status, "status", "", "only this status (open, approve, reject, expired, …)")
	return c
}
