package engine

import (
	"path/filepath"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/claimorder"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/kernel"
)

// ReadModelName is the read model's file name in the project's anchor
// directory (internal/anchor): outside the work tree, so that an agent whose
// writes are confined to it cannot edit what decisions read.
const ReadModelName = "readmodel.json"

// readModelPath is <anchor>/readmodel.json, "" when the project has no
// anchor directory (no state directory is known): then decisions read the
// store.
func (e *Engine) readModelPath() string {
	d, err := e.anchorDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, ReadModelName)
}

// loadReadModel returns the cached read model when it matches state.db exactly, the file is
// readable, the anchor's chain head is the one it was built at and, while this engine holds the
// store, it describes the store's committed state (readmodel.Model.Describes); nil otherwise (the
// caller reads the store, whose own checks refuse a store behind or off the anchor's chain).
func (e *Engine) loadReadModel(now time.Time) *readmodel.Model {
	p := e.readModelPath()
	if p == "" {
		return nil
	}
	rm := e.rmCache.Load(p, filepath.Join(e.StateDir(), kernel.DBFile), claimorder.Order().Bundle, now)
	if rm == nil {
		return nil
	}
	if a, ok, err := kernel.ReadAnchor(filepath.Dir(p)); err != nil || !ok || rm.Head == "" || a.Hash != rm.Head || a.Rev != rm.Rev || (e.store != nil && !rm.Describes(e.store)) {
		return nil
	}
	e.rmNewest = rm.Newest
	return rm
}

// takeReadModel takes the refresh rmWant asks for, under the lock
// (readmodel.Take): Release writes it after the unlock.
func (e *Engine) takeReadModel() readmodel.Refresh {
	if !e.rmWant || e.store == nil || e.spec == nil || e.spec.Spec == nil {
		return readmodel.Refresh{}
	}
	e.rmWant = false
	if d, err := e.ensureAnchorDir(); err == nil {
		return readmodel.Take(e.store, filepath.Join(d, ReadModelName), e.GoalIDs(), e.rmStamp, claimorder.Order())
	}
	return readmodel.Refresh{}
}

// VerifyReadModel reports whether the read model file, when it claims to
// describe the current state.db, holds exactly what the store says
// (readmodel.Verify: a file edited outside loopx is removed and false is
// returned). It opens the store. Errors: the store's.
func (e *Engine) VerifyReadModel() (bool, error) {
	if _, err := e.Store(); err != nil {
		return false, err
	}
	p := e.readModelPath()
	if p == "" {
		return true, nil
	}
	return readmodel.Verify(p, e.store, e.GoalIDs(), claimorder.Order())
}
