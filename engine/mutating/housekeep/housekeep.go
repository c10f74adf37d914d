// Package housekeep is what the spec and time decide before and after
// every mutation, inside its write transaction: the spec's todos seeded,
// spec gates materialised and following the spec, open gates expired
// (on_expiry applied) or closed when every todo they wait on is gone, each
// change with its audit event. It writes through Tx (a kernel write
// transaction) and never the store's owner, the top engine package.
package housekeep

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// Tx is what housekeeping reads and writes: a kernel write transaction.
type Tx interface {
	Now() time.Time
	Todos(goal string) ([]records.Todo, error)
	AddTodo(t records.Todo) (records.Todo, error)
	Gates(goal string) ([]records.Gate, error)
	AddGate(g records.Gate) (records.Gate, error)
	PutGate(g records.Gate) error
	AppendEvent(e records.Event) error
}

// Gates applies what time and deletions decided since the last mutation
// to the gates of goals (each in b's spec): it materialises spec gates
// (their expiry counts from then), makes open spec gates follow the spec
// (cancelled when it no longer declares them), expires open gates past
// expires_at (applying on_expiry), and closes todo-scoped gates whose
// todos are all gone, each with an audit event. Errors: tx's.
func Gates(tx Tx, b inputstate.Builder, goals []string) error {
	now := tx.Now()
	for _, goal := range goals {
		gs := b.GoalSpec(goal)
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
			if !have[inputstate.SpecGateID(goal, n)] {
				g, err := tx.AddGate(inputstate.SpecGate(goal, n, gs.Gates[n], now))
				if err != nil {
					return err
				}
				gates = append(gates, g)
			}
		}
		for i, g := range gates {
			if g.Status != records.GateOpen || g.Name == "" {
				continue
			}
			cur, ok := b.SpecView(g)
			switch {
			case !ok:
				g.Status = records.GateCancelled
				g.Answer = &records.Answer{Option: records.GateCancelled, By: "loopx", Note: "removed from the spec", At: now}
				if err := tx.PutGate(g); err != nil {
					return err
				}
				if err := tx.AppendEvent(records.Event{Kind: "gate.cancelled", Goal: goal, Actor: "loopx", Subject: g.ID,
					Message: fmt.Sprintf("gate cancelled: goals.%s.gates.%s was removed from the spec", goal, g.Name)}); err != nil {
					return err
				}
				gates[i] = g
			case specChanged(g, cur):
				if err := tx.PutGate(cur); err != nil {
					return err
				}
				if err := tx.AppendEvent(records.Event{Kind: "gate.updated", Goal: goal, Actor: "loopx", Subject: g.ID,
					Message: fmt.Sprintf("gate follows the spec's goals.%s.gates.%s (question, options, answerers, guards or scope changed)", goal, g.Name)}); err != nil {
					return err
				}
				gates[i] = cur
			}
		}
		var todos map[string]records.Todo
		for _, g := range gates {
			if g.Status != records.GateOpen {
				continue
			}
			if !g.ExpiresAt.IsZero() && !now.Before(g.ExpiresAt) {
				g.Status = records.GateExpired
				if g.OnExpiry != "" {
					g.Status = g.OnExpiry
				}
				g.Answer = &records.Answer{Option: g.Status, By: "loopx", Note: "expired", At: now}
				if err := tx.PutGate(g); err != nil {
					return err
				}
				if err := tx.AppendEvent(records.Event{Kind: "gate.expired", Goal: goal, Actor: "loopx", Subject: g.ID,
					Message: fmt.Sprintf("gate expired at %s; on_expiry applied: %s", records.RFC3339(g.ExpiresAt), g.Status)}); err != nil {
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
				todos = map[string]records.Todo{}
				for _, t := range list {
					todos[t.ID] = t
					if t.SpecName != "" {
						todos[t.SpecName] = t
					}
				}
			}
			alive := false
			for _, id := range g.ScopeTodos {
				if t, ok := todos[id]; ok && t.Status != records.TodoCancelled {
					alive = true
				}
			}
			if !alive {
				g.Status = records.GateCancelled
				g.Answer = &records.Answer{Option: records.GateCancelled, By: "loopx", Note: "every todo the gate waits on is gone", At: now}
				if err := tx.PutGate(g); err != nil {
					return err
				}
				if err := tx.AppendEvent(records.Event{Kind: "gate.cancelled", Goal: goal, Actor: "loopx", Subject: g.ID,
					Message: fmt.Sprintf("gate cancelled: the todos it waits on (%v) were deleted or cancelled", g.ScopeTodos)}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// SeedTodos stores the todos spec declares (goals.<g>.todos.<name>) that
// are not in the store yet, matched by spec name; a nil spec (broken)
// seeds nothing. Errors: tx's.
func SeedTodos(tx Tx, spec *specs.Spec) error {
	if spec == nil {
		return nil
	}
	goals := make([]string, 0, len(spec.Goals))
	for g := range spec.Goals {
		goals = append(goals, g)
	}
	sort.Strings(goals)
	for _, g := range goals {
		gs := spec.Goals[g]
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
			if slices.ContainsFunc(have, func(t records.Todo) bool { return t.SpecName == n }) {
				continue
			}
			ts := gs.Todos[n]
			if _, err := tx.AddTodo(records.Todo{Goal: g, Title: ts.Title, Kind: ts.Kind, Priority: parsePriority(ts.Priority),
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

// specChanged reports whether the spec gate instance b differs from a
// in what the spec defines.
func specChanged(a, b records.Gate) bool {
	return a.Question != b.Question || !slices.Equal(a.Options, b.Options) || !slices.Equal(a.Answerers, b.Answerers) ||
		!slices.Equal(a.Guards, b.Guards) || a.ScopeKind != b.ScopeKind || !slices.Equal(a.ScopeAgents, b.ScopeAgents) ||
		!slices.Equal(a.ScopeTodos, b.ScopeTodos) || a.OnExpiry != b.OnExpiry || !a.ExpiresAt.Equal(b.ExpiresAt)
}
