package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/mutating/retention"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/spf13/cobra"
)

// eventsOptions are the flags of `loopx events`.
type eventsOptions struct {
	reportdata.EventFilter
	since string
	// pruneBefore is --prune-before: an RFC 3339 instant, or a duration
	// back from now (pruneAt or pruneAgo once validated).
	pruneBefore string
	pruneAt     time.Time
	pruneAgo    time.Duration
}

// validate checks the flags alone (no project opened): --limit not
// negative, --since a positive duration, --prune-before an RFC 3339
// instant or a positive duration and alone (no filter with it).
func (o *eventsOptions) validate() error {
	if o.pruneBefore != "" {
		if o.Goal != "" || o.Kind != "" || o.since != "" || o.Limit != 0 {
			return usagef("--prune-before prunes the whole log: it takes no --goal, --kind, --since or --limit")
		}
		if t, err := time.Parse(time.RFC3339, o.pruneBefore); err == nil {
			o.pruneAt = t.UTC()
			return nil
		}
		d, err := engine.ParseDuration(o.pruneBefore)
		if err != nil || d <= 0 {
			return usagef("--prune-before %q: give an RFC 3339 instant (2026-09-01T00:00:00Z) or a positive duration back from now (90d, 2160h)", o.pruneBefore)
		}
		o.pruneAgo = d
		return nil
	}
	if o.Limit < 0 {
		return usagef("--limit %d must not be negative", o.Limit)
	}
	if o.since != "" {
		d, err := engine.ParseDuration(o.since)
		if err != nil {
			return sinceError(o.since)
		}
		if d <= 0 {
			return usagef("--since %q must be a positive duration", o.since)
		}
		o.SinceSeconds = int64(d.Seconds())
	}
	return nil
}

// runEvents prints the audit log (engine.Events), or prunes it with
// --prune-before (human only: the built-in channel rule decides, a refusal
// is audited as events.prune_refused).
func (a *app) runEvents(ctx context.Context, o *eventsOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	if o.pruneBefore != "" {
		return a.runPrune(ctx, e, o)
	}
	evs, err := e.Events(o.EventFilter)
	if err != nil {
		return err
	}
	polls, err := e.GatePolls(o.Goal)
	if err != nil {
		return err
	}
	rows := render.WithPolls(evs, polls)
	return a.print(rows, func(w io.Writer) {
		// The kind column is as wide as the longest kind shown (at least 18,
		// the width of the common kinds), so a long kind is neither cut nor
		// pushes its row out of line.
		kindWidth := 18
		for _, ev := range rows {
			kindWidth = max(kindWidth, len(ev.Kind))
		}
		for _, ev := range rows {
			fmt.Fprintf(w, "%s  %-*s %-8s %-10s %s %s", ev.At.Format("2006-01-02T15:04:05Z"), kindWidth, ev.Kind, ev.Goal, ev.Actor, ev.Subject, ev.Message)
			if ev.Polls != nil {
				fmt.Fprintf(w, " [first poll; %s]", render.PollText(*ev.Polls))
			}
			fmt.Fprintln(w)
		}
	})
}

func (a *app) eventsCmd() *cobra.Command {
	o := &eventsOptions{}
	c := &cobra.Command{
		Use:   "events",
		Short: "Show the audit log: every mutation, gate violation and recovery; prune it (human only)",
		Long: `Events prints the audit log (.loopx/events.log, oldest first): every
mutation, gate and scope violation, refusal and recovery. Every record read
is checked (checksum, hash chain); a damaged one is an error naming it.

An agent host polling ` + "`loopx round start`" + ` under an open gate is audited
once per gate and agent: the first refused poll is a gate.waited event
(a wait, not a violation; data first_poll), the next ones are counted in that agent's poll record
of the gate. Its line shows the count ("[first poll; polled 5× by cursor
from … to …]"), and --json adds it as "polls" {goal, gate, agent,
count, first_at, last_at} to that event.

--prune-before INSTANT|DURATION prunes the log (human only: decided by the
built-in channel rule data.loopx.repair.decision; from an agent, a round or a
process below one it is refused, exit 1, and audited as
events.prune_refused). It drops the oldest events before the instant (an
RFC 3339 instant, or a duration back from now) that a human has reviewed:
an event of a goal before that goal's last ` + "`loopx review --mark`" + `, a
project-wide event before every goal's. An event not yet reviewed, and
everything after it, is kept. The dropped records are replaced by one
checkpoint carrying the hash of the last of them, so the chain stays
verifiable; the prune is audited (events.pruned). The spec's audit.retain
(e.g. "90d") does the same by itself once a day and after each marked
review.`,
		Example: `  loopx events --goal g1 --since 2h
  loopx events --kind gate --json
  loopx events --prune-before 90d
  loopx events --prune-before 2026-09-01T00:00:00Z`,
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
	c.Flags().StringVar(&o.pruneBefore, "prune-before", "", "prune reviewed events older than this instant or duration (human only)")
	return c
}

// runPrune prunes the audit event log before --prune-before
// (engine.PruneEvents) after the human-only check.
func (a *app) runPrune(ctx context.Context, e *engine.Engine, o *eventsOptions) error {
	if err := a.humanOnly(ctx, e, "events --prune-before", true, "events.prune_refused", ".loopx/events.log"); err != nil {
		return err
	}
	before := o.pruneAt
	if before.IsZero() {
		before = e.Now().Add(-o.pruneAgo)
	}
	rep, err := e.PruneEvents(before, "human")
	if err != nil {
		return err
	}
	return a.print(map[string]any{"before": before.Format(time.RFC3339), "pruned": rep.Pruned, "kept": rep.Kept,
		"unreviewed": rep.Unreviewed, "through_seq": rep.ThroughSeq, "head": rep.Head}, func(w io.Writer) {
		fmt.Fprintf(w, "pruned %s older than %s; %s left\n", retention.Count(rep.Pruned), before.Format(time.RFC3339), retention.Count(rep.Kept))
		if rep.Unreviewed > 0 {
			fmt.Fprintf(w, "kept %s older, not yet reviewed (or after one that is not): `loopx review --goal G --mark` reviews them\n", retention.Count(rep.Unreviewed))
		}
	})
}

// sinceError is the usage error of a --since that is not a duration: what
// was typed and the format it takes.
func sinceError(since string) error {
	return usagef("--since %q is not a duration: write a number and a unit, e.g. 90m, 24h, 7d or 2w", since)
}
