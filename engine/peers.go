package engine

import (
	"slices"

	"github.com/loopx-dev/loopx/engine/render"
	"github.com/loopx-dev/loopx/engine/views"
	"github.com/loopx-dev/loopx/kernel"
)

// HeldLease is a live lease an agent holds, for `loopx agent list` and
// the review packet (render.HeldLease).
type HeldLease = render.HeldLease

// AgentInfo is a registered agent with its heartbeat facts and the live
// leases it holds (views.AgentInfo).
type AgentInfo = views.AgentInfo

// AgentInfos lists registered agents (spec agents register on first use)
// with their heartbeat facts, by id.
func (e *Engine) AgentInfos() ([]AgentInfo, error) {
	out := []AgentInfo{}
	err := e.view(func(tx *kernel.Tx) error {
		as, err := tx.Agents()
		if err != nil {
			return err
		}
		held, err := e.liveLeases(tx)
		if err != nil {
			return err
		}
		out = views.Agents(as, held)
		return nil
	})
	return out, err
}

// liveLeases maps each holder to its live leases, over every spec goal
// (views.LiveLeases).
func (e *Engine) liveLeases(tx *kernel.Tx) (map[string][]HeldLease, error) {
	return views.LiveLeases(tx, e.GoalIDs())
}

// Handoffs returns the handoffs of goal ("" = every spec goal), oldest
// first (by creation instant, then goal and store order). Errors:
// errs.Usage for an unknown goal.
func (e *Engine) Handoffs(goal string) ([]kernel.Handoff, error) {
	goals := e.GoalIDs()
	if goal != "" {
		if err := e.RequireGoal(goal); err != nil {
			return nil, err
		}
		goals = []string{goal}
	}
	out, err := perGoal(e, goals, (*kernel.Tx).Handoffs, func(kernel.Handoff) bool { return true })
	slices.SortStableFunc(out, func(a, b kernel.Handoff) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, err
}
