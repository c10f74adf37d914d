package engine

import (
	"time"

	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/specs"
)

// Init is `loopx init`: scaffold.Init, whose new store records loopx/ as
// Init leaves it as the first adoption. Errors: those of
// scaffold.Init, and loopx/ failing to load for the adoption.
func Init(o scaffold.Options) (scaffold.Result, error) {
	return scaffold.Init(o, func(root string, s *kernel.Store) error { return adoptAtInit(root, s, o.Now) })
}

// adoptAtInit records loopx/ as the adopted rules in s when none are (a
// store kept by a second init keeps its adopted rules: an edit since is
// judged against them, as any other).
func adoptAtInit(root string, s *kernel.Store, now func() time.Time) error {
	have := false
	if err := s.View(func(tx *kernel.Tx) error {
		var err error
		_, have, err = tx.Rules()
		return err
	}); err != nil || have {
		return err
	}
	if now == nil {
		now = time.Now
	}
	e := &Engine{root: root, now: now, rules: newRules(root)}
	e.rules.disk, e.rules.diskErr = specs.Load(e.SpecDir()) // a Rules of its own, nobody else's
	if e.rules.diskErr != nil {
		return e.rules.diskErr
	}
	r, err := e.diskRules()
	if err != nil {
		return err
	}
	return s.Update(func(tx *kernel.Tx) error {
		r.By, r.AdoptedAt = "loopx", tx.Now()
		return tx.PutRules(r)
	})
}
