package engine

import (
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
)

// loadReadModel is Session.loadReadModel of this engine's session.
func (e *Engine) loadReadModel(now time.Time) *readmodel.Model { return e.sess.loadReadModel(now) }

// VerifyReadModel reports whether the read model file, when it claims to
// describe the current state.db, holds exactly what the store says
// (readmodel.Verify: a file edited outside loopx is removed and false is
// returned). It opens the store. Errors: the store's.
func (e *Engine) VerifyReadModel() (bool, error) {
	if _, err := e.Store(); err != nil {
		return false, err
	}
	return e.sess.verifyReadModel(e.GoalIDs())
}
