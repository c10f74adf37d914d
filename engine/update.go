package engine

import (
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/mutating/housekeep"
	"github.com/loopx-dev/loopx/engine/mutating/spoolimport"
	"github.com/loopx-dev/loopx/kernel"
)

// update runs fn in one kernel transaction after importing the denial
// spool (spool.go), seeding the spec's todos and housekeeping gates (so
// every mutation sees the spec applied), and housekeeps again after fn (so
// a gate whose todos fn cancelled closes in the same transaction, with its
// audit event). The imported spool segments are deleted after the commit;
// the read model is refreshed when the store is released (Release).
func (e *Engine) update(fn func(tx *kernel.Tx) error) error {
	s, err := e.Store()
	if err != nil {
		return err
	}
	var spooled []string
	err = s.Update(func(tx *kernel.Tx) error {
		var err error
		if spooled, err = spoolimport.Import(tx, e.spoolDir()); err != nil {
			return err
		}
		if err := e.firstAdoption(tx); err != nil {
			return err
		}
		if err := e.seed(tx); err != nil {
			return err
		}
		if err := e.housekeep(tx); err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		// Again after fn, so that what fn changed (a todo cancelled, a gate
		// raised already past its expiry) settles in the same transaction.
		if err := e.housekeep(tx); err != nil {
			return err
		}
		// The spec's audit.retain, once a day (prune.go).
		return e.retain(tx, false)
	})
	if err == nil {
		hosts.RemoveSpool(spooled)
		e.sess.rmWant = true
	}
	return err
}

// settle runs the housekeeping of update alone, with no mutation of its
// own, for readers that must see the spec applied and time's effects
// settled: it imports the denial spool, adopts the first revision, seeds
// the spec's todos, materialises spec gates and expires or closes open
// ones (each with its audit event), in one transaction.
func (e *Engine) settle() error {
	return e.update(func(*kernel.Tx) error { return nil })
}

// view runs fn in a read-only kernel transaction.
func (e *Engine) view(fn func(tx *kernel.Tx) error) error {
	s, err := e.Store()
	if err != nil {
		return err
	}
	return s.View(fn)
}

// housekeep applies what time and deletions decided since the last
// mutation to the gates of the spec's goals (housekeep.Gates).
func (e *Engine) housekeep(tx *kernel.Tx) error {
	return housekeep.Gates(tx, e.rules.facts(), e.GoalIDs())
}

// seed stores the todos the spec declares that are not in the store yet
// (housekeep.SeedTodos).
func (e *Engine) seed(tx *kernel.Tx) error { return housekeep.SeedTodos(tx, e.rules.facts().Spec) }
