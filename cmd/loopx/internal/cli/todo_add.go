package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/mutating/todos"
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/spf13/cobra"
)

func (a *app) todoCmd() *cobra.Command {
	c := &cobra.Command{Use: "todo", Short: "Add, list, show and settle todos"}
	c.AddCommand(a.todoAddCmd(), a.todoListCmd(), a.todoShowCmd(),
		a.todoStatusCmd("done", records.TodoDone, "Mark a todo done"),
		a.todoStatusCmd("block", records.TodoBlocked, "Mark a todo blocked (it is not selected until reopened)"),
		a.todoStatusCmd("cancel", records.TodoCancelled, "Cancel a todo"),
		a.todoStatusCmd("reopen", records.TodoOpen, "Reopen a todo"))
	c.AddCommand(a.todoClaimCmd(), a.todoRenewCmd(), a.todoReleaseCmd(), a.todoTransferCmd())
	return c
}

// todoAddOptions are the flags and title of `loopx todo add`.
type todoAddOptions struct {
	todos.Input
	prio, every string
}

// validate checks the flags alone (no project opened): --priority P0..P4
// and --every a positive duration (at least 1s).
func (o *todoAddOptions) validate() error {
	p, err := todos.ParsePriority(o.prio)
	if err != nil {
		return err
	}
	o.Priority = p
	if o.every != "" {
		d, err := engine.ParseDuration(o.every)
		if err != nil {
			return usagef("--every %q: %v", o.every, err)
		}
		if d < time.Second {
			return usagef("--every %q must be positive: a monitor's cadence is at least 1s (e.g. 15m)", o.every)
		}
		o.EverySeconds = int64(d.Seconds())
	}
	return nil
}

// runTodoAdd adds the todo as the acting agent or human (engine.AddTodo).
func (a *app) runTodoAdd(ctx context.Context, o *todoAddOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	if o.By, err = a.actor(ctx, e, "todo add", o.Goal); err != nil {
		return err
	}
	t, err := e.AddTodo(o.Input)
	if err != nil {
		return err
	}
	return a.print(contract.TodoOf(t), func(w io.Writer) { fmt.Fprintf(w, "added %s %s\n", t.ID, t.Title) })
}

func (a *app) todoAddCmd() *cobra.Command {
	o := &todoAddOptions{}
	c := &cobra.Command{
		Use:   "add --goal G TITLE",
		Short: "Add a todo to a goal",
		Example: `  loopx todo add --goal g1 "Write the migration guide"
  loopx todo add --goal g1 --priority P0 --depends-on t-4f9a "Publish the guide"
  loopx todo add --goal g1 --kind monitor --every 15m "Check CI on open PRs"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Title = strings.Join(args, " ")
			if err := o.validate(); err != nil {
				return err
			}
			return a.runTodoAdd(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Goal, "goal", "", "the goal (required)")
	f.StringVar(&o.Kind, "kind", "task", "task, monitor, gate or action")
	f.StringVar(&o.prio, "priority", "P2", "P0 (most urgent) to P4")
	f.StringSliceVar(&o.DependsOn, "depends-on", nil, "todo ids that must be done first")
	f.StringSliceVar(&o.Labels, "label", nil, `labels ("review": for reviewers; "for:AGENT": handed to AGENT)`)
	f.StringArrayVar(&o.Scope, "scope", nil, "a glob the todo writes (repeatable, e.g. docs/**); two agents never hold overlapping scopes")
	f.StringVar(&o.every, "every", "", "a monitor's cadence (e.g. 15m)")
	return c
}
