package engine

import (
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// SeedSpecTodos stores the todos the spec declares for goal that the store
// does not hold yet, the step before a decision about goal reads the state
// (Decide itself writes none): otherwise a fresh project (or a todo just
// added to the spec) would answer no_todo until some unrelated write
// seeded them, and the read path (decide should-run) would disagree with
// the write path (round start). It reads the read model's seeded todos
// when it is fresh: a seeded project pays no write. A failure is left for
// the decision itself to report (fail closed).
func (e *Engine) SeedSpecTodos(goal string) {
	gs := e.rules.facts().GoalSpec(goal)
	if gs == nil || len(gs.Todos) == 0 {
		return
	}
	missing := func(todos func(goal string) ([]records.Todo, error)) bool {
		ts, err := todos(goal)
		if err != nil {
			return false
		}
		have := map[string]bool{}
		for _, t := range ts {
			have[t.SpecName] = true
		}
		for n := range gs.Todos {
			if !have[n] {
				return true
			}
		}
		return false
	}
	if rm := e.sess.loadReadModel(e.Now()); rm != nil && !missing(rm.SeededTodos) {
		return
	}
	need := true
	if err := e.view(func(tx *kernel.Tx) error { need = missing(tx.Todos); return nil }); err != nil || !need {
		return
	}
	_ = e.settle() // seeds first
}
