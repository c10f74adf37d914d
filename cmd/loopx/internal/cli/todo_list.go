package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/spf13/cobra"
)

// todoListOptions are the flags of `loopx todo list`.
type todoListOptions struct {
	goal, status string
}

// validate checks the flags alone (no project opened); the engine checks
// --status.
func (o *todoListOptions) validate() error { return nil }

// runTodoList lists the todos (engine.Todos) as a table.
func (a *app) runTodoList(_ context.Context, o *todoListOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	ts, err := e.Todos(o.goal, o.status)
	if err != nil {
		return err
	}
	return a.print(contract.Todos(ts), func(w io.Writer) {
		if len(ts) == 0 {
			fmt.Fprintln(w, "no todos")
			return
		}
		printTable(w, []string{"ID", "GOAL", "PRIO", "KIND", "STATUS", "HOLDER", "TITLE"}, todoRows(ts, e.Now()))
	})
}

// todoRows are the table rows of todos at now (an expired holder marked).
func todoRows(ts []records.Todo, now time.Time) [][]string {
	rows := make([][]string, 0, len(ts))
	for _, t := range ts {
		holder := ""
		if t.Lease != nil && !t.Lease.Released {
			holder = t.Lease.Holder
			if !t.Lease.LiveAt(now) {
				holder += " (expired)"
			}
		}
		rows = append(rows, []string{t.ID, t.Goal, records.PriorityString(t.Priority), t.Kind, t.Status, holder, t.Title})
	}
	return rows
}

func (a *app) todoListCmd() *cobra.Command {
	o := &todoListOptions{}
	c := &cobra.Command{
		Use:     "list",
		Short:   "List todos (by priority, then age)",
		Example: "  loopx todo list --goal g1 --status open\n  loopx todo list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runTodoList(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.goal, "goal", "", "only this goal")
	c.Flags().StringVar(&o.status, "status", "", "only this status: open, claimed, done, blocked, cancelled")
	return c
}
