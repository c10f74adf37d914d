package engine

import (
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
)

// source is what a decision reads from the kernel: a read transaction, or
// the cached read model (inputstate.Source).
type source = inputstate.Source

// facts builds input.state under the adopted spec (package inputstate).
func (e *Engine) facts() inputstate.Builder {
	b := inputstate.Builder{Revisions: e.rules.revisions}
	if e.rules.spec != nil {
		b.Spec = e.rules.spec.Spec
	}
	return b
}
