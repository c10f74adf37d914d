package engine

import (
	"path/filepath"
	"time"

	"github.com/loopx-dev/loopx/engine/render"
	"github.com/loopx-dev/loopx/engine/snapshot"
	"github.com/loopx-dev/loopx/kernel"
)

// GoalStatus is one goal's summary for `loopx status` (render.GoalStatus).
type GoalStatus = render.GoalStatus

// Status is the project's summary (render.Status; render.StatusText
// prints it).
type Status = render.Status

// Status summarises every spec goal (or only goal) from one read
// transaction. Errors: the spec's errors, errs.Usage for an unknown goal,
// store errors.
func (e *Engine) Status(goal string) (Status, error) {
	st := Status{Root: e.root, Goals: []GoalStatus{}}
	if e.specErr != nil {
		return st, e.specErr
	}
	goals := e.GoalIDs()
	if goal != "" {
		if err := e.RequireGoal(goal); err != nil {
			return st, err
		}
		goals = []string{goal}
	}
	st.Project = e.spec.Spec.Project.Name
	if st.Project == "" {
		st.Project = filepath.Base(e.root)
	}
	for _, g := range goals {
		e.seedSpecTodos(g) // the spec's todos show from the first status on
	}
	now := e.Now()
	st.Now = rfc(now)
	fill := func(src statusSource) error {
		st.State = src.Revision()
		for _, g := range goals {
			gs, err := e.goalStatus(src, g, now)
			if err != nil {
				return err
			}
			st.Goals = append(st.Goals, gs)
		}
		return nil
	}
	if e.store == nil { // the read model answers without the store lock
		if rm := e.loadReadModel(now); rm != nil && rm.Has(goals...) {
			if err := fill(rm); err == nil {
				return st, nil
			}
			st.Goals = []GoalStatus{}
		}
	}
	err := e.view(func(tx *kernel.Tx) error { return fill(tx) })
	if err == nil {
		e.writeReadModel() // the next status or decision skips the store
	}
	return st, err
}

// statusSource is what Status reads: a kernel transaction or the read model.
type statusSource interface {
	source
	Handoffs(goal string) ([]kernel.Handoff, error)
	EvidenceCount(goal string) (int, error)
}

func (e *Engine) goalStatus(tx statusSource, goal string, now time.Time) (GoalStatus, error) {
	spec := e.goalSpec(goal)
	out := GoalStatus{ID: goal, Objective: spec.Objective, Todos: map[string]int{}, NextTodos: []TodoRef{}, OpenGates: []kernel.Gate{}}
	gst, err := tx.Goal(goal)
	if err != nil {
		return out, err
	}
	out.Status, out.Reason = gst.Status, gst.Reason
	todos, err := tx.Todos(goal)
	if err != nil {
		return out, err
	}
	var newest *kernel.Todo
	for i, t := range todos {
		out.Todos[t.Status]++
		if t.Status == kernel.TodoOpen || t.Status == kernel.TodoClaimed {
			if len(out.NextTodos) < 5 {
				out.NextTodos = append(out.NextTodos, TodoRef{ID: t.ID, Title: t.Title, Kind: t.Kind})
			}
			if newest == nil || t.CreatedAt.After(newest.CreatedAt) || (t.CreatedAt.Equal(newest.CreatedAt) && t.Seq > newest.Seq) {
				newest = &todos[i]
			}
		}
	}
	if newest != nil {
		out.NewestTodo = &TodoRef{ID: newest.ID, Title: newest.Title, Kind: newest.Kind}
	}
	if out.OpenGates, err = e.facts().OpenGates(tx, goal); err != nil {
		return out, err
	}
	if out.OpenGates == nil {
		out.OpenGates = []kernel.Gate{}
	}
	rounds, err := tx.Rounds(goal)
	if err != nil {
		return out, err
	}
	if len(rounds) > 0 {
		out.LastRound = &rounds[len(rounds)-1]
	}
	ledger, err := tx.Ledger(goal)
	if err != nil {
		return out, err
	}
	out.Quota = quotaSummary(spec, snapshot.QuotaFacts(spec, ledger, rounds, now))
	hs, err := tx.Handoffs(goal)
	if err != nil {
		return out, err
	}
	if len(hs) > 0 {
		out.LastHandoff = &hs[len(hs)-1]
	}
	out.Evidence, err = tx.EvidenceCount(goal)
	return out, err
}
