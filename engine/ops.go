package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/loopx-dev/loopx/engine/evidence"
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/lease"
	"github.com/loopx-dev/loopx/engine/todos"
	"github.com/loopx-dev/loopx/engine/views"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
)

// TodoInput is a todo to add (todos.Input).
type TodoInput = todos.Input

// ParsePriority reads a todo priority written P0 (most urgent) to P4
// (case-insensitive) and returns 0..4 (todos.ParsePriority). Errors:
// errs.Usage bad_priority.
func ParsePriority(s string) (int, error) { return todos.ParsePriority(s) }

// AddTodo validates and stores a todo. Errors: errs.Usage for an unknown
// goal, kind, dependency, or a monitor without a cadence.
func (e *Engine) AddTodo(in TodoInput) (kernel.Todo, error) {
	var out kernel.Todo
	if err := e.RequireGoal(in.Goal); err != nil {
		return out, err
	}
	if err := in.Validate(); err != nil {
		return out, err
	}
	err := e.update(func(tx *kernel.Tx) error {
		for _, d := range in.DependsOn {
			if _, err := tx.Todo(d); err != nil {
				if IsNotFound(err) {
					return Usagef("unknown_todo", "depends on unknown todo %q", d)
				}
				return err
			}
		}
		var err error
		out, err = tx.AddTodo(kernel.Todo{Goal: in.Goal, Title: in.Title, Kind: in.Kind, Priority: in.Priority,
			DependsOn: in.DependsOn, Labels: in.Labels, Scope: in.Scope, EverySeconds: in.EverySeconds, CreatedBy: in.By})
		return err
	})
	return out, err
}

// Todo returns one todo. Errors: errs.Usage unknown_todo.
func (e *Engine) Todo(id string) (kernel.Todo, error) {
	var t kernel.Todo
	err := e.view(func(tx *kernel.Tx) error {
		var err error
		t, err = tx.Todo(id)
		if IsNotFound(err) {
			return Usagef("unknown_todo", "unknown todo %q", id)
		}
		return err
	})
	return t, err
}

// Todos lists a goal's todos ("" = every spec goal), optionally only those
// with status.
func (e *Engine) Todos(goal, status string) ([]kernel.Todo, error) {
	goals, err := e.goalsIn(goal)
	if err != nil {
		return nil, err
	}
	if statuses := []string{kernel.TodoOpen, kernel.TodoClaimed, kernel.TodoDone, kernel.TodoBlocked, kernel.TodoCancelled}; status != "" && !slices.Contains(statuses, status) {
		return nil, Usagef("bad_status", "status %q is not one of %v", status, statuses)
	}
	if err := e.settle(); err != nil { // seed spec todos
		return nil, err
	}
	return perGoal(e, goals, (*kernel.Tx).Todos, func(t kernel.Todo) bool { return status == "" || t.Status == status })
}

// SetTodoStatus marks a todo done, blocked, cancelled or open again, with a
// note, releasing any lease. Errors: errs.Usage unknown_todo / bad_status.
func (e *Engine) SetTodoStatus(id, status, note, actor string) (kernel.Todo, error) {
	var t kernel.Todo
	if !slices.Contains([]string{kernel.TodoDone, kernel.TodoBlocked, kernel.TodoCancelled, kernel.TodoOpen}, status) {
		return t, Usagef("bad_status", "status %q is not done, blocked, cancelled or open", status)
	}
	var cd claimDecision
	err := e.updatePrepared(context.Background(), "claim", func(tx *kernel.Tx) error {
		cd = claimDecision{}
		var err error
		t, err = tx.Todo(id)
		if IsNotFound(err) {
			return Usagef("unknown_todo", "unknown todo %q", id)
		}
		if err != nil {
			return err
		}
		if status == kernel.TodoDone {
			// Done is progress: an open gate that stops the work refuses it,
			// whoever asks — an agent without LOOPX_AGENT looks like a human,
			// so the holder's gates count too. A human answers the gate first.
			who := actor
			if actor == "human" {
				who = ""
				if t.Lease.LiveAt(tx.Now()) {
					who = t.Lease.Holder
				}
			}
			facts, err := e.claimTodoFacts(tx, t, who)
			if err != nil {
				return err
			}
			if cd, err = e.checkSettle(context.Background(), tx, t.Goal, who, actor != "human", ClaimFacts{Op: "done", Todo: facts}); err != nil {
				return err
			}
		} else if actor != "human" {
			// An agent blocking, cancelling or reopening a todo: not one
			// another agent leases (data.loopx.claim, op settle).
			facts, err := e.claimTodoFacts(tx, t, actor)
			if err != nil {
				return err
			}
			if cd, err = e.checkSettle(context.Background(), tx, t.Goal, actor, true, ClaimFacts{Op: "settle", Todo: facts}); err != nil {
				return err
			}
		}
		old := t.Status
		lease.Release(&t)
		t.Status, t.Note = status, note
		if err := tx.PutTodo(t); err != nil {
			return err
		}
		return tx.AppendEvent(kernel.Event{Kind: todoEventKind(status), Goal: t.Goal, Actor: actor, Subject: t.ID, Message: note,
			Data: map[string]any{"from": old}})
	})
	e.logClaim(cd)
	e.recordViolation(t.Goal, actor, err, map[string]any{"mutation": todoEventKind(status), "todo": id})
	if re := errs.As(err); re != nil && re.Kind == errs.No && re.Code == "leased_by_other" {
		_ = e.update(func(tx *kernel.Tx) error {
			return tx.AppendEvent(kernel.Event{Kind: "todo.change_refused", Goal: t.Goal, Actor: actor, Subject: id,
				Message: todoEventKind(status) + " refused: " + re.Message, Data: map[string]any{"code": re.Code, "status": status}})
		})
	}
	return t, err
}

// AddEvidence validates and stores evidence for a goal.
func (e *Engine) AddEvidence(ev kernel.Evidence) (kernel.Evidence, error) {
	if err := e.RequireGoal(ev.Goal); err != nil {
		return ev, err
	}
	ev, err := evidence.Check(ev, e.root)
	if err != nil {
		return ev, err
	}
	var cd claimDecision
	in := ev
	err = e.updatePrepared(context.Background(), "claim", func(tx *kernel.Tx) error {
		ev, cd = in, claimDecision{}
		if ev.Todo != "" {
			if _, err := tx.Todo(ev.Todo); IsNotFound(err) {
				return Usagef("unknown_todo", "unknown todo %q", ev.Todo)
			}
		}
		if ev.Action != "" {
			var err error
			if cd, err = e.checkProgress(context.Background(), tx, ev.Goal, ev.By, ClaimFacts{Op: "evidence", Action: ev.Action}); err != nil {
				return err
			}
		}
		var err error
		ev, err = tx.AddEvidence(ev)
		return err
	})
	e.logClaim(cd)
	e.recordViolation(ev.Goal, ev.By, err, map[string]any{"mutation": "evidence.add", "action": ev.Action})
	return ev, err
}

// Evidence lists a goal's evidence, newest first (limit 0 = all).
func (e *Engine) Evidence(goal string, limit int) ([]kernel.Evidence, error) {
	if err := e.RequireGoal(goal); err != nil {
		return nil, err
	}
	var out []kernel.Evidence
	err := e.view(func(tx *kernel.Tx) error {
		var err error
		out, err = tx.EvidenceList(goal, limit)
		return err
	})
	if out == nil {
		out = []kernel.Evidence{}
	}
	return out, err
}

// SetGoalStatus pauses, resumes (active), finishes (done) or archives a goal.
func (e *Engine) SetGoalStatus(goal, status, reason, actor string) (kernel.GoalState, error) {
	var st kernel.GoalState
	if err := e.RequireGoal(goal); err != nil {
		return st, err
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

// GoalState returns a goal's runtime state.
func (e *Engine) GoalState(goal string) (kernel.GoalState, error) {
	var st kernel.GoalState
	if err := e.RequireGoal(goal); err != nil {
		return st, err
	}
	err := e.view(func(tx *kernel.Tx) error {
		var err error
		st, err = tx.Goal(goal)
		return err
	})
	return st, err
}

// EventFilter selects audit events (views.EventFilter).
type EventFilter = views.EventFilter

// Events returns audit events matching f, oldest first (the newest Limit
// when Limit > 0), after importing denials that hooks spooled since the
// last write (spool.go). Kind matches exactly or as a family
// (views.EventFilter.Check, Match).
func (e *Engine) Events(f EventFilter) ([]kernel.Event, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	if f.Goal != "" {
		if err := e.RequireGoal(f.Goal); err != nil {
			return nil, err
		}
	}
	if err := e.importPending(); err != nil {
		return nil, err
	}
	out := []kernel.Event{}
	now := e.Now()
	err := e.view(func(tx *kernel.Tx) error {
		return tx.Events(func(ev kernel.Event) bool {
			if f.Match(ev, now) {
				out = append(out, ev)
			}
			return true
		})
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out, err
}

// Round returns one round. Errors: errs.Usage unknown_round.
func (e *Engine) Round(id string) (kernel.Round, error) {
	var r kernel.Round
	err := e.view(func(tx *kernel.Tx) error {
		var err error
		r, err = tx.Round(id)
		if IsNotFound(err) {
			return Usagef("unknown_round", "unknown round %q", id)
		}
		return err
	})
	return r, err
}

// RegisterAgent registers (or updates) an agent.
func (e *Engine) RegisterAgent(a kernel.Agent) (kernel.Agent, error) {
	if err := hosts.CheckRegistration(a.ID, a.Host, a.Mode); err != nil {
		return a, err
	}
	if e.spec != nil && e.spec.Spec != nil {
		if sa, ok := e.spec.Spec.Agents[a.ID]; ok && sa.Host != a.Host {
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
		if err := tx.PutAgent(a); err != nil {
			return err
		}
		return tx.AppendEvent(kernel.Event{Kind: "agent.registered", Actor: a.ID, Subject: a.ID,
			Message: fmt.Sprintf("host %s, role %s", a.Host, a.Role)})
	})
	return a, err
}

// Agents lists registered agents.
func (e *Engine) Agents() ([]kernel.Agent, error) {
	out := []kernel.Agent{}
	err := e.view(func(tx *kernel.Tx) error {
		as, err := tx.Agents()
		out = append(out, as...)
		return err
	})
	return out, err
}

// todoEventKind names the audit event of a status change ("todo.reopened"
// for open, else "todo.<status>").
func todoEventKind(status string) string {
	if status == kernel.TodoOpen {
		return "todo.reopened"
	}
	return "todo." + status
}

// goalsIn returns [goal] when the spec declares it, or every spec goal for
// "". Errors: the spec's error (a broken spec must not read as "nothing
// here"), errs.Usage for an unknown goal.
func (e *Engine) goalsIn(goal string) ([]string, error) {
	if goal != "" {
		return []string{goal}, e.RequireGoal(goal)
	}
	if e.specErr != nil {
		return nil, e.specErr
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
