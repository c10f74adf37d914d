package engine

import (
	"fmt"
	"slices"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/hosts/registry"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// AgentInfos lists the agents declared in the adopted spec and those
// loopx has a record of (registered by a human, or seen acting), with
// their heartbeat facts and what makes each known, by id.
func (e *Engine) AgentInfos() ([]reportdata.AgentInfo, error) {
	out := []reportdata.AgentInfo{}
	err := e.view(func(tx *kernel.Tx) error {
		as, err := tx.Agents()
		if err != nil {
			return err
		}
		held, err := e.liveLeases(tx)
		if err != nil {
			return err
		}
		var declared map[string]specs.Agent
		if sp := e.rules.facts().Spec; sp != nil {
			declared = sp.Agents
		}
		out = reportdata.Agents(as, declared, held)
		return nil
	})
	return out, err
}

// liveLeases maps each holder to its live leases, over every spec goal
// (reportdata.LiveLeases).
func (e *Engine) liveLeases(tx *kernel.Tx) (map[string][]render.HeldLease, error) {
	return reportdata.LiveLeases(tx, e.GoalIDs())
}

// Handoffs returns the handoffs of goal ("" = every spec goal), oldest
// first (by creation instant, then goal and store order). Errors:
// errs.Usage for an unknown goal.
func (e *Engine) Handoffs(goal string) ([]records.Handoff, error) {
	goals := e.GoalIDs()
	if goal != "" {
		if err := e.RequireGoal(goal); err != nil {
			return nil, err
		}
		goals = []string{goal}
	}
	out, err := perGoal(e, goals, (*kernel.Tx).Handoffs, func(records.Handoff) bool { return true })
	slices.SortStableFunc(out, func(a, b records.Handoff) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, err
}

// RegisterAgent registers (or updates) an agent.
func (e *Engine) RegisterAgent(a records.Agent) (records.Agent, error) {
	if err := hosts.CheckRegistration(a.ID, a.Host, a.Mode, registry.Names()); err != nil {
		return a, err
	}
	if e.rules.spec != nil && e.rules.spec.Spec != nil {
		if sa, ok := e.rules.spec.Spec.Agents[a.ID]; ok && sa.Host != a.Host {
			return a, Usagef("spec_agent", "agent %s is declared in the spec with host %s; change it there (the spec wins)", a.ID, sa.Host)
		}
	}
	err := e.update(func(tx *kernel.Tx) error {
		old, err := tx.Agent(a.ID)
		if err == nil {
			a.RegisteredAt, a.LastSeenAt = old.RegisteredAt, old.LastSeenAt
		} else {
			a.RegisteredAt = tx.Now()
		}
		if a.Role == "" {
			a.Role = "executor"
		}
		if a.Mode == "" {
			a.Mode = "active"
		}
		a.Registered = true
		if err := tx.PutAgent(a); err != nil {
			return err
		}
		return tx.AppendEvent(records.Event{Kind: "agent.registered", Actor: a.ID, Subject: a.ID,
			Message: fmt.Sprintf("host %s, role %s", a.Host, a.Role)})
	})
	return a, err
}
