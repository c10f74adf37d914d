package engine

import (
	"github.com/loopx-dev/loopx/engine/deciding/snapshot"
)

// source is what a decision reads from the kernel: a read transaction, or
// the cached read model (snapshot.Source).
type source = snapshot.Source

// facts builds input.state under the adopted spec (package snapshot).
func (e *Engine) facts() snapshot.Builder {
	b := snapshot.Builder{Revisions: e.rules.revisions}
	if e.rules.spec != nil {
		b.Spec = e.rules.spec.Spec
	}
	return b
}
