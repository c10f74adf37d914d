package engine

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/claimorder"
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/open-policy-agent/opa/v1/rego"
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
			gs, err := reportdata.GoalStatus(e.rules.facts(), src, g, now, e.statusNext(context.Background(), g))
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

// statusDeniedRule is the built-in rule that says which of a goal's todos
// a user claim policy keeps out of status's "next".
const statusDeniedRule = "data.loopx.status.denied"

// statusNext is what status lists as goal's next todos and todos for
// humans: claimorder.Next, less the todos a user claim policy denies to an
// agent holding none (data.loopx.status.denied), as should_run leaves them
// out of its selection. Without a user claim policy it is claimorder.Next.
// Errors: claimorder.Next's; the user policies' (loading, compiling,
// evaluating).
func (e *Engine) statusNext(ctx context.Context, goal string) reportdata.NextFunc {
	user, err := e.rules.UserModules()
	if err == nil && !slices.ContainsFunc(user, func(m rulebook.Module) bool { return m.Package == "loopx.user.claim" && !m.Test }) {
		return claimorder.Next
	}
	return func(todos []records.Todo, depsOpen [][]string, gates []records.Gate, now time.Time) ([]records.Todo, []records.Todo, error) {
		next, forYou, err := claimorder.Next(todos, depsOpen, gates, now)
		if err != nil || len(next) == 0 {
			return next, forYou, err
		}
		if user, err = e.rules.UserModules(); err != nil {
			return nil, nil, err
		}
		pq, err := e.rules.compileRef(ctx, statusDeniedRule, user)
		if err != nil {
			return nil, nil, err
		}
		in := map[string]any{"query": "should_run", "goal": goal, "agent": "", "now": records.RFC3339(now),
			"state": map[string]any{"todos": inputstate.TodoFacts(next, "", now)}}
		ctx, cancel := e.rules.withDeadline(ctx)
		defer cancel()
		rs, err := pq.Eval(ctx, rego.EvalInput(in))
		if err != nil {
			return nil, nil, errors.New(rulebook.EvalError(ctx, err, e.rules.PolicyDeadline()))
		}
		denied := map[string]bool{}
		if len(rs) == 1 && len(rs[0].Expressions) == 1 {
			ids, _ := rs[0].Expressions[0].Value.([]any)
			for _, id := range ids {
				if s, ok := id.(string); ok {
					denied[s] = true
				}
			}
		}
		kept := next[:0:0]
		for _, t := range next {
			if !denied[t.ID] {
				kept = append(kept, t)
			}
		}
		return kept, forYou, nil
	}
}
