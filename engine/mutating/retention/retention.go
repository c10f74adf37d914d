// Package retention decides which audit events may be pruned from the
// event log (loopx events --prune-before, spec field audit.retain): only
// events a human has reviewed, never one not yet reviewed.
package retention

import (
	"fmt"
	"slices"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// ReviewEventKind is the event `loopx review --mark` records
// (reportdata.ReviewEventKind): a goal's events before its last one are
// reviewed.
const ReviewEventKind = "review.generated"

// Source reads the audit events in order (kernel.Tx.Events).
type Source interface {
	Events(fn func(records.Event) bool) error
}

// Reviewed returns whether an event has been reviewed, from the events of
// src: a goal's event is reviewed when a later review.generated event of
// that goal exists (the review covered it); a project-wide event (no goal)
// when every goal of goals has such a review after it (each goal's review
// lists the project's events); with no goals, never. Errors: src's.
func Reviewed(src Source, goals []string) (func(records.Event) bool, error) {
	last := map[string]uint64{}
	err := src.Events(func(ev records.Event) bool {
		if ev.Kind == ReviewEventKind && ev.Goal != "" {
			last[ev.Goal] = ev.Seq
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	var project uint64
	for i, g := range goals {
		if i == 0 || last[g] < project {
			project = last[g]
		}
	}
	return func(ev records.Event) bool {
		if ev.Goal == "" {
			return ev.Seq < project
		}
		return ev.Seq < last[ev.Goal]
	}, nil
}

// Due reports whether audit.retain (retainSeconds > 0) should be applied
// at now, when it last ran at last (zero: never): at most once per
// Interval.
func Due(retainSeconds int64, last, now time.Time) bool {
	return retainSeconds > 0 && (last.IsZero() || !now.Before(last.Add(Interval)) || now.Before(last))
}

// Interval is how often audit.retain is applied by the writes that pass.
const Interval = 24 * time.Hour

// Cutoff is the instant before which audit.retain prunes at now.
func Cutoff(retainSeconds int64, now time.Time) time.Time {
	return now.Add(-time.Duration(retainSeconds) * time.Second)
}

// Goals lists the goal ids of a spec's goals map, sorted.
func Goals[V any](goals map[string]V) []string {
	out := make([]string, 0, len(goals))
	for g := range goals {
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// Count says n events in words: "1 audit event", "3 audit events".
func Count(n int) string {
	if n == 1 {
		return "1 audit event"
	}
	return fmt.Sprintf("%d audit events", n)
}
