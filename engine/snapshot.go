package engine

import (
	"time"

	"github.com/loopx-dev/loopx/engine/snapshot"
	"github.com/loopx-dev/loopx/specs"
)

// source is what a decision reads from the kernel: a read transaction, or
// the cached read model (snapshot.Source).
type source = snapshot.Source

// facts builds input.state under the adopted spec (package snapshot).
func (e *Engine) facts() snapshot.Builder {
	b := snapshot.Builder{Revisions: e.revisions}
	if e.spec != nil {
		b.Spec = e.spec.Spec
	}
	return b
}

// goalSpec returns the spec of goal, nil when the spec is broken or has no such goal.
func (e *Engine) goalSpec(goal string) *specs.Goal { return e.facts().GoalSpec(goal) }

// rfc renders t as RFC 3339 UTC with second precision, "" for the zero
// time (snapshot.RFC).
func rfc(t time.Time) string { return snapshot.RFC(t) }

// nonNil is s, or an empty slice for nil (snapshot.NonNil).
func nonNil(s []string) []string { return snapshot.NonNil(s) }
