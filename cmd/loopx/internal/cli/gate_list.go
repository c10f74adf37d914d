package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/kernel/records"
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
	polls, err := e.GatePolls(o.goal)
	if err != nil {
		return err
	}
	rows := render.GatesWithPolls(gs, polls)
	return a.print(rows, func(w io.Writer) {
		if len(gs) == 0 {
			fmt.Fprintln(w, "no gates")
			return
		}
		printTable(w, []string{"ID", "GOAL", "STATUS", "SCOPE", "QUESTION"}, gateRows(gs))
		for _, r := range rows {
			for _, p := range r.Polls {
				fmt.Fprintf(w, "%s: %s\n", r.ID, render.PollText(p))
			}
		}
	})
}

// gateRows are the table rows of gs: id, goal, status, scope, question.
func gateRows(gs []records.Gate) [][]string {
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
		Long: `List prints the gates that pass the filters, then, under the table, the
counted polls of ` + "`loopx round start`" + ` under each ("g-4f9a: polled 5× by
cursor from … to …"). --json prints each gate with "polls": [{goal,
gate, agent, count, first_at, last_at}] ([] when none).`,
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
