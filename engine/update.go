package engine

import (
	"fmt"
	"slices"
	"sort"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/snapshot"
	"github.com/loopx-dev/loopx/kernel"
)

// update runs fn in one kernel transaction after importing the denial
// spool (spool.go), seeding the spec's todos and housekeeping gates (so
// every mutation sees the spec applied), and housekeeps again after fn (so
// a gate whose todos fn cancelled closes in the same transaction, with its
// audit event). The imported spool segments are deleted after the commit.
func (e *Engine) update(fn func(tx *kernel.Tx) error) error {
	s, err := e.Store()
	if err != nil {
		return err
	}
	var spooled []string
	err = s.Update(func(tx *kernel.Tx) error {
		var err error
		if spooled, err = e.importSpool(tx); err != nil {
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
		return e.housekeep(tx)
	})
	if err == nil {
		hosts.RemoveSpool(spooled)
		e.writeReadModel()
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
// mutation: it materialises spec gates (their expiry counts from then),
// expires open gates past expires_at (applying on_expiry), and closes
// todo-scoped gates whose todos are all gone, each with an audit event.
func (e *Engine) housekeep(tx *kernel.Tx) error {
	now := tx.Now()
	for _, goal := range e.GoalIDs() {
		gs := e.goalSpec(goal)
		gates, err := tx.Gates(goal)
		if err != nil {
			return err
		}
		have := map[string]bool{}
		for _, g := range gates {
			have[g.ID] = true
		}
		names := make([]string, 0, len(gs.Gates))
		for n := range gs.Gates {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if !have[snapshot.SpecGateID(goal, n)] {
				g, err := tx.AddGate(snapshot.SpecGate(goal, n, gs.Gates[n], now))
				if err != nil {
					return err
				}
				gates = append(gates, g)
			}
		}
		for i, g := range gates {
			if g.Status != kernel.GateOpen || g.Name == "" {
				continue
			}
			cur, ok := e.facts().SpecView(g)
			switch {
			case !ok:
				g.Status = kernel.GateCancelled
				g.Answer = &kernel.Answer{Option: kernel.GateCancelled, By: "loopx", Note: "removed from the spec", At: now}
				if err := tx.PutGate(g); err != nil {
					return err
				}
				if err := tx.AppendEvent(kernel.Event{Kind: "gate.cancelled", Goal: goal, Actor: "loopx", Subject: g.ID,
					Message: fmt.Sprintf("gate cancelled: goals.%s.gates.%s was removed from the spec", goal, g.Name)}); err != nil {
					return err
				}
				gates[i] = g
			case specChanged(g, cur):
				if err := tx.PutGate(cur); err != nil {
					return err
				}
				if err := tx.AppendEvent(kernel.Event{Kind: "gate.updated", Goal: goal, Actor: "loopx", Subject: g.ID,
					Message: fmt.Sprintf("gate follows the spec's goals.%s.gates.%s (question, options, answerers, guards or scope changed)", goal, g.Name)}); err != nil {
					return err
				}
				gates[i] = cur
			}
		}
		var todos map[string]kernel.Todo
		for _, g := range gates {
			if g.Status != kernel.GateOpen {
				continue
			}
			if !g.ExpiresAt.IsZero() && !now.Before(g.ExpiresAt) {
				g.Status = kernel.GateExpired
				if g.OnExpiry != "" {
					g.Status = g.OnExpiry
				}
				g.Answer = &kernel.Answer{Option: g.Status, By: "loopx", Note: "expired", At: now}
				if err := tx.PutGate(g); err != nil {
					return err
				}
				if err := tx.AppendEvent(kernel.Event{Kind: "gate.expired", Goal: goal, Actor: "loopx", Subject: g.ID,
					Message: fmt.Sprintf("gate expired at %s; on_expiry applied: %s", rfc(g.ExpiresAt), g.Status)}); err != nil {
					return err
				}
				continue
			}
			if g.ScopeKind != "todo" || len(g.ScopeTodos) == 0 {
				continue
			}
			if todos == nil {
				list, err := tx.Todos(goal)
				if err != nil {
					return err
				}
				todos = map[string]kernel.Todo{}
				for _, t := range list {
					todos[t.ID] = t
					if t.SpecName != "" {
						todos[t.SpecName] = t
					}
				}
			}
			alive := false
			for _, id := range g.ScopeTodos {
				if t, ok := todos[id]; ok && t.Status != kernel.TodoCancelled {
					alive = true
				}
			}
			if !alive {
				g.Status = kernel.GateCancelled
				g.Answer = &kernel.Answer{Option: kernel.GateCancelled, By: "loopx", Note: "every todo the gate waits on is gone", At: now}
				if err := tx.PutGate(g); err != nil {
					return err
				}
				if err := tx.AppendEvent(kernel.Event{Kind: "gate.cancelled", Goal: goal, Actor: "loopx", Subject: g.ID,
					Message: fmt.Sprintf("gate cancelled: the todos it waits on (%v) were deleted or cancelled", g.ScopeTodos)}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// seed stores the todos the spec declares (goals.<g>.todos.<name>) that are
// not in the store yet, matched by spec name.
func (e *Engine) seed(tx *kernel.Tx) error {
	if e.spec == nil || e.spec.Spec == nil {
		return nil
	}
	goals := make([]string, 0, len(e.spec.Spec.Goals))
	for g := range e.spec.Spec.Goals {
		goals = append(goals, g)
	}
	sort.Strings(goals)
	for _, g := range goals {
		gs := e.spec.Spec.Goals[g]
		if len(gs.Todos) == 0 {
			continue
		}
		have, err := tx.Todos(g)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(gs.Todos))
		for n := range gs.Todos {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if slices.ContainsFunc(have, func(t kernel.Todo) bool { return t.SpecName == n }) {
				continue
			}
			ts := gs.Todos[n]
			if _, err := tx.AddTodo(kernel.Todo{Goal: g, Title: ts.Title, Kind: ts.Kind, Priority: parsePriority(ts.Priority),
				SpecName: n, EverySeconds: ts.EverySeconds, CreatedBy: "spec"}); err != nil {
				return err
			}
		}
	}
	return nil
}

// parsePriority maps "P0".."P4" to 0..4 (default 2).
func parsePriority(p string) int {
	if len(p) == 2 && (p[0] == 'P' || p[0] == 'p') && p[1] >= '0' && p[1] <= '4' {
		return int(p[1] - '0')
	}
	return 2
}

func specChanged(a, b kernel.Gate) bool {
	return a.Question != b.Question || !slices.Equal(a.Options, b.Options) || !slices.Equal(a.Answerers, b.Answerers) ||
		!slices.Equal(a.Guards, b.Guards) || a.ScopeKind != b.ScopeKind || !slices.Equal(a.ScopeAgents, b.ScopeAgents) ||
		!slices.Equal(a.ScopeTodos, b.ScopeTodos) || a.OnExpiry != b.OnExpiry || !a.ExpiresAt.Equal(b.ExpiresAt)
}
