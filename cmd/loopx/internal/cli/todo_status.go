package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/spf13/cobra"
)

// todoStatusOptions are the argument and flags of `loopx todo
// done|block|cancel|reopen` (one command per status, built by
// todoStatusCmd).
type todoStatusOptions struct {
	// name is the command (done, block, cancel, reopen), status the todo
	// status it sets.
	name, status string
	todo, note   string
}

// validate checks the flags alone (no project opened).
func (o *todoStatusOptions) validate() error { return nil }

// runTodoStatus sets the todo's status as the acting agent or human
// (engine.SetTodoStatus).
func (a *app) runTodoStatus(ctx context.Context, o *todoStatusOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	e.Prepare(ctx, a.defaultAgent() == "", query.Claim) // an agent changing a todo always decides claim
	by, err := a.actor(ctx, e, "todo "+o.name, "")
	if err != nil {
		return err
	}
	t, err := e.SetTodoStatus(o.todo, o.status, o.note, by)
	if err != nil {
		return err
	}
	return a.print(contract.TodoOf(t), func(w io.Writer) { fmt.Fprintf(w, "%s %s: %s\n", t.ID, t.Title, t.Status) })
}

func (a *app) todoStatusCmd(name, status, short string) *cobra.Command {
	o := &todoStatusOptions{name: name, status: status}
	c := &cobra.Command{
		Use:     name + " TODO",
		Short:   short,
		Example: fmt.Sprintf("  loopx todo %s t-4f9a --note \"why\"", name),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.todo = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runTodoStatus(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.note, "note", "", "why")
	return c
}
