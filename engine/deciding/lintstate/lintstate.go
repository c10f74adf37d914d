// Package lintstate is the read-only snapshot of the kernel state that
// `loopx check`'s lint rules read as input.state: goals'
// statuses, todos with their leases, stored gates, the newest evidence per
// goal and kind, registered agents. It reads through Tx and writes
// nothing; the top engine package opens the read transaction.
package lintstate

import (
	"maps"
	"slices"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/kernel/records"
)

// State is the read-only snapshot of kernel state that `loopx check`
// lints (lint rules see it as input.state). It covers the spec's goals.
// Times are RFC 3339 UTC; ages are whole seconds at the engine's clock.
type State struct {
	// Revision is the store's global revision (0 when there is no store).
	Revision uint64 `json:"revision"`
	// Goals are the spec goals' runtime statuses.
	Goals []Goal `json:"goals"`
	// Todos are every todo of the spec's goals, whatever their status.
	Todos []Todo `json:"todos"`
	// Gates are every stored gate of the spec's goals (spec gates that were
	// never materialised are not stored and are checked in the spec).
	Gates []Gate `json:"gates"`
	// Evidence is the newest evidence record per goal and kind.
	Evidence []Evidence `json:"evidence"`
	// Agents are the registered agents.
	Agents []Agent `json:"agents"`
	// LeftSpec are the goals the store keeps todos, gates or quota ledger
	// entries for that the spec no longer declares (a renamed or removed
	// goal), sorted by id.
	LeftSpec []LeftGoal `json:"left_spec"`
}

// LeftGoal is the state kept for a goal the spec no longer declares.
type LeftGoal struct {
	ID string `json:"id"`
	// Todos and Gates count its todos and stored gates (any status);
	// Ledger its quota ledger entries (charges and refunds).
	Todos  int `json:"todos"`
	Gates  int `json:"gates"`
	Ledger int `json:"ledger"`
}

// Goal is a goal's runtime status.
type Goal struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// Todo is one todo with its dependencies and lease.
type Todo struct {
	ID        string   `json:"id"`
	Goal      string   `json:"goal"`
	Title     string   `json:"title"`
	Kind      string   `json:"kind"`
	Status    string   `json:"status"`
	DependsOn []string `json:"depends_on"`
	Labels    []string `json:"labels"`
	Lease     *Lease   `json:"lease"`
}

// Lease is a todo's current or last lease.
type Lease struct {
	Holder    string `json:"holder"`
	ExpiresAt string `json:"expires_at"`
	Released  bool   `json:"released"`
	// Live is true while the lease holds at the engine's clock.
	Live bool `json:"live"`
}

// Gate is a stored gate instance.
type Gate struct {
	ID        string   `json:"id"`
	Goal      string   `json:"goal"`
	Name      string   `json:"name"`
	Question  string   `json:"question"`
	Status    string   `json:"status"`
	Answerers []string `json:"answerers"`
	RaisedBy  string   `json:"raised_by"`
	RaisedAt  string   `json:"raised_at"`
	ExpiresAt string   `json:"expires_at"`
}

// Evidence is the newest evidence of one kind for a goal.
type Evidence struct {
	ID        string `json:"id"`
	Goal      string `json:"goal"`
	Kind      string `json:"kind"`
	Summary   string `json:"summary"`
	Todo      string `json:"todo,omitempty"`
	CreatedAt string `json:"created_at"`
	// AgeSeconds is how old it is at the engine's clock.
	AgeSeconds int64 `json:"age_seconds"`
}

// Agent is a registered agent.
type Agent struct {
	ID   string `json:"id"`
	Host string `json:"host"`
	Role string `json:"role"`
}

// Tx is what the snapshot reads: a kernel read transaction.
type Tx interface {
	Revision() uint64
	Goal(id string) (records.GoalState, error)
	Todos(goal string) ([]records.Todo, error)
	Gates(goal string) ([]records.Gate, error)
	EvidenceList(goal string, limit int) ([]records.Evidence, error)
	Agents() ([]records.Agent, error)
	GoalRecordCounts() (map[string]records.GoalRecords, error)
}

// Empty is the state of a project without a store: goals active, nothing
// else.
func Empty(goals []string) State {
	st := State{Goals: []Goal{}, Todos: []Todo{}, Gates: []Gate{}, Evidence: []Evidence{}, Agents: []Agent{}, LeftSpec: []LeftGoal{}}
	for _, g := range goals {
		st.Goals = append(st.Goals, Goal{ID: g, Status: records.GoalActive})
	}
	return st
}

// Read reads the snapshot of goals (the spec's, sorted) at now (leases'
// liveness, evidence ages). Errors: tx's.
func Read(tx Tx, goals []string, now time.Time) (State, error) {
	st := State{Goals: []Goal{}, Todos: []Todo{}, Gates: []Gate{}, Evidence: []Evidence{}, Agents: []Agent{}, LeftSpec: []LeftGoal{}}
	st.Revision = tx.Revision()
	for _, goal := range goals {
		gs, err := tx.Goal(goal)
		if err != nil {
			return st, err
		}
		st.Goals = append(st.Goals, Goal{ID: goal, Status: gs.Status, Reason: gs.Reason})
		todos, err := tx.Todos(goal)
		if err != nil {
			return st, err
		}
		for _, t := range todos {
			ct := Todo{ID: t.ID, Goal: goal, Title: t.Title, Kind: t.Kind, Status: t.Status,
				DependsOn: inputstate.NonNil(t.DependsOn), Labels: inputstate.NonNil(t.Labels)}
			if l := t.Lease; l != nil {
				ct.Lease = &Lease{Holder: l.Holder, ExpiresAt: records.RFC3339(l.ExpiresAt), Released: l.Released, Live: l.LiveAt(now)}
			}
			st.Todos = append(st.Todos, ct)
		}
		gates, err := tx.Gates(goal)
		if err != nil {
			return st, err
		}
		for _, g := range gates {
			st.Gates = append(st.Gates, Gate{ID: g.ID, Goal: goal, Name: g.Name, Question: g.Question, Status: g.Status,
				Answerers: inputstate.NonNil(g.Answerers), RaisedBy: g.RaisedBy, RaisedAt: records.RFC3339(g.RaisedAt), ExpiresAt: records.RFC3339(g.ExpiresAt)})
		}
		evs, err := tx.EvidenceList(goal, 0) // newest first
		if err != nil {
			return st, err
		}
		seen := map[string]bool{}
		for _, ev := range evs {
			if seen[ev.Kind] {
				continue
			}
			seen[ev.Kind] = true
			st.Evidence = append(st.Evidence, Evidence{ID: ev.ID, Goal: goal, Kind: ev.Kind, Summary: ev.Summary,
				Todo: ev.Todo, CreatedAt: records.RFC3339(ev.CreatedAt), AgeSeconds: int64(now.Sub(ev.CreatedAt).Seconds())})
		}
	}
	counts, err := tx.GoalRecordCounts()
	if err != nil {
		return st, err
	}
	for _, id := range slices.Sorted(maps.Keys(counts)) {
		if slices.Contains(goals, id) {
			continue
		}
		c := counts[id]
		st.LeftSpec = append(st.LeftSpec, LeftGoal{ID: id, Todos: c.Todos, Gates: c.Gates, Ledger: c.Ledger})
	}
	agents, err := tx.Agents()
	for _, a := range agents {
		st.Agents = append(st.Agents, Agent{ID: a.ID, Host: a.Host, Role: a.Role})
	}
	return st, err
}
