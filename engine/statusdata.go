package engine

import (
	"path/filepath"

	"github.com/loopx-dev/loopx/engine/deciding/claimorder"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Status summarises every spec goal (or only goal) from one read
// transaction. Errors: the spec's errors, errs.Usage for an unknown goal,
// store errors.
func (e *Engine) Status(goal string) (render.Status, error) {
	st := render.Status{Root: e.root, Goals: []render.GoalStatus{}}
	if e.rules.specErr != nil {
		return st, e.rules.specErr
	}
	goals := e.GoalIDs()
	if goal != "" {
		if err := e.RequireGoal(goal); err != nil {
			return st, err
		}
		goals = []string{goal}
	}
	st.Project = e.rules.spec.Spec.Project.Name
	if st.Project == "" {
		st.Project = filepath.Base(e.root)
	}
	for _, g := range goals {
		e.SeedSpecTodos(g) // the spec's todos show from the first status on
	}
	now := e.Now()
	st.Now = records.RFC3339(now)
	fill := func(src reportdata.StatusSource) error {
		st.State = src.StateRevision()
		for _, g := range goals {
			gs, err := reportdata.GoalStatus(e.rules.facts(), src, g, now, claimorder.Next)
			if err != nil {
				return err
			}
			st.Goals = append(st.Goals, gs)
		}
		return nil
	}
	if e.sess.store == nil { // the read model answers without the store lock
		if rm := e.sess.loadReadModel(now); rm != nil && rm.Has(goals...) {
			if err := fill(rm); err == nil {
				return st, nil
			}
			st.Goals = []render.GoalStatus{}
		}
	}
	err := e.view(func(tx *kernel.Tx) error { return fill(tx) })
	if err == nil {
		e.sess.rmWant = true // the next status or decision skips the store
	}
	return st, err
}
