package engine

import (
	"path/filepath"
	"time"

	"github.com/loopx-dev/loopx/engine/readmodel"
	"github.com/loopx-dev/loopx/kernel"
)

func (e *Engine) readModelPath() string {
	return filepath.Join(e.StateDir(), "cache", "readmodel.json")
}

// loadReadModel returns the cached read model when it matches state.db
// exactly and the file is readable; nil otherwise.
func (e *Engine) loadReadModel(now time.Time) *readmodel.Model {
	rm := readmodel.Load(e.readModelPath(), filepath.Join(e.StateDir(), kernel.DBFile), now)
	if rm != nil {
		e.rmNewest = rm.Newest
	}
	return rm
}

// writeReadModel refreshes the read model from the open store. It must run
// while this engine holds the store (and so the lock), after a commit.
// Failures only cost speed: the stale file no longer matches and is ignored.
func (e *Engine) writeReadModel() {
	if e.store == nil || e.spec == nil || e.spec.Spec == nil {
		return
	}
	if st, err := readmodel.StampOf(e.store.Path()); err == nil && st == e.rmStamp {
		return // this engine wrote it for this very state.db already
	}
	rm, b, err := readmodel.Build(e.store, e.GoalIDs())
	if err != nil {
		return
	}
	if readmodel.Write(e.readModelPath(), b) == nil {
		e.rmStamp = rm.Stamp
	}
}

// VerifyReadModel reports whether the read model file, when it claims to
// describe the current state.db, holds exactly what the store says
// (readmodel.Verify: a file edited outside loopx is removed and false is
// returned). It opens the store. Errors: the store's.
func (e *Engine) VerifyReadModel() (bool, error) {
	if _, err := e.Store(); err != nil {
		return false, err
	}
	return readmodel.Verify(e.readModelPath(), e.store, e.GoalIDs())
}
