package engine

import (
	"github.com/loopx-dev/loopx/engine/views"
	"github.com/loopx-dev/loopx/kernel"
)

// EventFilter selects audit events (views.EventFilter).
type EventFilter = views.EventFilter

// Events returns audit events matching f, oldest first (the newest Limit
// when Limit > 0), after importing denials that hooks spooled since the
// last write (spool.go). Kind matches exactly or as a family
// (views.EventFilter.Check, Match).
func (e *Engine) Events(f EventFilter) ([]kernel.Event, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	if f.Goal != "" {
		if err := e.RequireGoal(f.Goal); err != nil {
			return nil, err
		}
	}
	if err := e.importPending(); err != nil {
		return nil, err
	}
	out := []kernel.Event{}
	now := e.Now()
	err := e.view(func(tx *kernel.Tx) error {
		return tx.Events(func(ev kernel.Event) bool {
			if f.Match(ev, now) {
				out = append(out, ev)
			}
			return true
		})
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out, err
}
