package engine

import (
	"slices"

	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// RequireGoal returns nil when the spec declares goal; the spec's error
// when the spec is broken; an errs.Usage error naming the goal otherwise.
func (e *Engine) RequireGoal(goal string) error {
	if e.rules.specErr != nil {
		return e.rules.specErr
	}
	if goal == "" {
		return Usagef("missing_goal", "no goal given (use --goal; goals: %v)", e.GoalIDs())
	}
	if e.rules.facts().GoalSpec(goal) == nil {
		if e.pendingDeclares(func(sp *specs.Spec) bool { _, ok := sp.Goals[goal]; return ok }) {
			return Usagef("unknown_goal", "unknown goal %q: loopx/ declares it, but that change is not adopted yet (adopted goals: %v); a human runs `loopx adopt` to adopt it", goal, e.GoalIDs())
		}
		return Usagef("unknown_goal", "unknown goal %q (spec goals: %v)", goal, e.GoalIDs())
	}
	return nil
}

// pendingDeclares is true when rule changes wait in loopx/ (Pending) and
// the spec on disk satisfies has: a name it declares that the adopted
// rules do not know yet, so an "unknown" error names `loopx adopt`.
func (e *Engine) pendingDeclares(has func(*specs.Spec) bool) bool {
	if e.rules.Pending() == nil {
		return false
	}
	disk, err := e.rules.DiskSpec()
	return err == nil && disk != nil && disk.Spec != nil && has(disk.Spec)
}

// GoalIDs lists the spec's goal ids, sorted.
func (e *Engine) GoalIDs() []string {
	if e.rules.spec == nil || e.rules.spec.Spec == nil {
		return nil
	}
	ids := make([]string, 0, len(e.rules.spec.Spec.Goals))
	for g := range e.rules.spec.Spec.Goals {
		ids = append(ids, g)
	}
	slices.Sort(ids)
	return ids
}

// SetGoalStatus pauses, resumes (active), finishes (done) or archives a goal.
// Errors: the unknown goal's; errs.Usage too_long (a reason over
// inert.MaxText characters); the store's.
func (e *Engine) SetGoalStatus(goal, status, reason, actor string) (records.GoalState, error) {
	var st records.GoalState
	if err := e.RequireGoal(goal); err != nil {
		return st, err
	}
	if err := inert.CheckLen("the reason (--reason)", reason, true); err != nil {
		return st, Usagef("too_long", "%v", err)
	}
	err := e.update(func(tx *kernel.Tx) error {
		if err := tx.SetGoalStatus(goal, status, reason, actor); err != nil {
			return err
		}
		var err error
		st, err = tx.Goal(goal)
		return err
	})
	return st, err
}

// goalsIn returns [goal] when the spec declares it, or every spec goal for
// "". Errors: the spec's error (a broken spec must not read as "nothing
// here"), errs.Usage for an unknown goal.
func (e *Engine) goalsIn(goal string) ([]string, error) {
	if goal != "" {
		return []string{goal}, e.RequireGoal(goal)
	}
	if e.rules.specErr != nil {
		return nil, e.rules.specErr
	}
	return e.GoalIDs(), nil
}

// perGoal reads list for each of goals, in order, in one read transaction
// and keeps the records keep accepts ([] when none).
func perGoal[T any](e *Engine, goals []string, list func(tx *kernel.Tx, goal string) ([]T, error), keep func(T) bool) ([]T, error) {
	out := []T{}
	err := e.view(func(tx *kernel.Tx) error {
		for _, g := range goals {
			xs, err := list(tx, g)
			if err != nil {
				return err
			}
			for _, x := range xs {
				if keep(x) {
					out = append(out, x)
				}
			}
		}
		return nil
	})
	return out, err
}
