package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine"
	"github.com/spf13/cobra"
)

// eventsOptions are the flags of `loopx events`.
type eventsOptions struct {
	engine.EventFilter
	since string
}

// validate checks the flags alone (no project opened): --limit not
// negative, --since a positive duration.
func (o *eventsOptions) validate() error {
	if o.Limit < 0 {
		return usagef("--limit %d must not be negative", o.Limit)
	}
	if o.since != "" {
		d, err := engine.ParseDuration(o.since)
		if err != nil {
			return usagef("--since %q: %v", o.since, err)
		}
		if d <= 0 {
			return usagef("--since %q must be a positive duration", o.since)
		}
		o.SinceSeconds = int64(d.Seconds())
	}
	return nil
}

// runEvents prints the audit log (engine.Events).
func (a *app) runEvents(_ context.Context, o *eventsOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	evs, err := e.Events(o.EventFilter)
	if err != nil {
		return err
	}
	return a.print(evs, func(w io.Writer) {
		for _, ev := range evs {
			fmt.Fprintf(w, "%s  %-18s %-8s %-10s %s %s\n", ev.At.Format("2006-01-02T15:04:05Z"), ev.Kind, ev.Goal, ev.Actor, ev.Subject, ev.Message)
		}
	})
}

func (a *app) eventsCmd() *cobra.Command {
	o := &eventsOptions{}
	c := &cobra.Command{
		Use:   "events",
		Short: "Show the audit log: every mutation, gate violation and recovery",
		Example: `  loopx events --goal g1 --since 2h
  loopx events --kind gate --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runEvents(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Goal, "goal", "", "only this goal")
	c.Flags().StringVar(&o.Kind, "kind", "", "only this kind or family (gate, gate.answered, round, todo, …)")
	c.Flags().StringVar(&o.since, "since", "", "only events this recent (e.g. 2h, 7d)")
	c.Flags().IntVar(&o.Limit, "limit", 0, "only the newest N")
	return c
}
