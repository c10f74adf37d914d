package reportdata

import (
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
)

// EventFamilies are the first parts of audit event kinds ("gate" in
// "gate.answered").
var EventFamilies = []string{"agent", "broker", "dashboard", "events", "evidence", "fs", "gate", "gate_violation", "goal", "handoff", "hooks", "identity", "permission", "review", "round", "rules", "sandbox", "scope_violation", "serve", "store", "todo"}

// EventFilter selects audit events (`loopx events`); zero fields match
// everything.
type EventFilter struct {
	Goal, Kind string
	// Since is the earliest instant (zero = all).
	SinceSeconds int64
	Limit        int
}

// Check refuses a Kind of no family (errs.Usage bad_kind).
func (f EventFilter) Check() error {
	if fam, _, _ := strings.Cut(f.Kind, "."); f.Kind != "" && !slices.Contains(EventFamilies, fam) {
		return errs.Usagef("bad_kind", "event kind %q: the families are %s (e.g. gate, gate.answered)", f.Kind, strings.Join(EventFamilies, ", "))
	}
	return nil
}

// Match reports whether ev passes f at now: its goal; its kind exactly or
// as a family ("gate" matches every gate.* event and gate_violation, "todo."
// every todo.* event); at most SinceSeconds old.
func (f EventFilter) Match(ev records.Event, now time.Time) bool {
	if f.Goal != "" && ev.Goal != f.Goal {
		return false
	}
	if f.Kind != "" && ev.Kind != f.Kind && !(strings.HasSuffix(f.Kind, ".") && strings.HasPrefix(ev.Kind, f.Kind)) && !strings.HasPrefix(ev.Kind, f.Kind+".") && !strings.HasPrefix(ev.Kind, f.Kind+"_") {
		return false
	}
	return f.SinceSeconds <= 0 || now.Sub(ev.At).Seconds() <= float64(f.SinceSeconds)
}

// Events returns the events of src that pass f at now, oldest first (the
// newest f.Limit when f.Limit > 0); never nil. Errors: src's.
func Events(src interface {
	Events(fn func(records.Event) bool) error
}, f EventFilter, now time.Time) ([]records.Event, error) {
	out := []records.Event{}
	err := src.Events(func(ev records.Event) bool {
		if f.Match(ev, now) {
			out = append(out, ev)
		}
		return true
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out, err
}
