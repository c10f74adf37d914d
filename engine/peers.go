package engine

import (
	"slices"

	"github.com/loopx-dev/loopx/engine/render"
	"github.com/loopx-dev/loopx/kernel"
)

// HeldLease is a live lease an agent holds, for `loopx agent list` and
// the review packet (render.HeldLease).
type HeldLease = render.HeldLease

// AgentInfo is a registered agent with its heartbeat facts: when it was
// last seen (any round start or finish, claim, renew, release or
// transfer), its open round, and the live leases it holds (CurrentLease
// is the one expiring last).
type AgentInfo struct {
	kernel.Agent
	CurrentLease *HeldLease  `json:"current_lease"`
	Leases       []HeldLease `json:"leases"`
}

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
		for _, a := range as {
			info := AgentInfo{Agent: a, Leases: held[a.ID]}
			if info.Leases == nil {
				info.Leases = []HeldLease{}
			}
			for i := range info.Leases {
				if info.CurrentLease == nil || info.Leases[i].ExpiresAt > info.CurrentLease.ExpiresAt {
					info.CurrentLease = &info.Leases[i]
				}
			}
			out = append(out, info)
		}
		return nil
	})
	return out, err
}

// liveLeases maps each holder to its live leases, over every spec goal.
func (e *Engine) liveLeases(tx *kernel.Tx) (map[string][]HeldLease, error) {
	now := tx.Now()
	out := map[string][]HeldLease{}
	for _, g := range e.GoalIDs() {
		todos, err := tx.Todos(g)
		if err != nil {
			return nil, err
		}
		for _, t := range todos {
			if l := t.Lease; l.LiveAt(now) {
				out[l.Holder] = append(out[l.Holder], HeldLease{Todo: t.ID, Goal: g, Title: t.Title, Version: l.Version,
					Epoch: l.Epoch, ExpiresAt: rfc(l.ExpiresAt), Round: l.Round})
			}
		}
	}
	return out, nil
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
	out := []kernel.Handoff{}
	err := e.view(func(tx *kernel.Tx) error {
		for _, g := range goals {
			hs, err := tx.Handoffs(g)
			if err != nil {
				return err
			}
			out = append(out, hs...)
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b kernel.Handoff) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, err
}
