package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/spf13/cobra"
)

// todoShowOptions are the argument of `loopx todo show`.
type todoShowOptions struct {
	todo string
}

// validate checks the argument alone (no project opened).
func (o *todoShowOptions) validate() error { return nil }

// runTodoShow prints one todo (records.Todo).
func (a *app) runTodoShow(_ context.Context, o *todoShowOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	t, err := e.Todo(o.todo)
	if err != nil {
		return err
	}
	return a.print(contract.TodoOf(t), func(w io.Writer) {
		fmt.Fprintf(w, "%s %s\n  goal %s, %s %s, %s\n", t.ID, t.Title, t.Goal, records.PriorityString(t.Priority), t.Kind, t.Status)
		if len(t.DependsOn) > 0 {
			fmt.Fprintf(w, "  depends on %s\n", strings.Join(t.DependsOn, ", "))
		}
		if l := t.Lease; l != nil {
			fmt.Fprintf(w, "  lease: %s, version %d, epoch %d, expires %s, released %v\n", l.Holder, l.Version, l.Epoch, l.ExpiresAt.Format("2006-01-02T15:04:05Z"), l.Released)
		}
		if t.Note != "" {
			fmt.Fprintf(w, "  note: %s\n", t.Note)
		}
	})
}

func (a *app) todoShowCmd() *cobra.Command {
	o := &todoShowOptions{}
	return &cobra.Command{
		Use:     "show TODO",
		Short:   "Show one todo",
		Example: "  loopx todo show t-4f9a --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.todo = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runTodoShow(cmd.Context(), o)
		},
	}
}
