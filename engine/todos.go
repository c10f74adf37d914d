package engine

import (
	"context"
	"slices"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/audit"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/mutating/todos"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// AddTodo validates and stores a todo. Errors: errs.Usage for an unknown
// goal, kind, dependency, or a monitor without a cadence.
func (e *Engine) AddTodo(in todos.Input) (records.Todo, error) {
	var out records.Todo
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
		out, err = tx.AddTodo(records.Todo{Goal: in.Goal, Title: in.Title, Kind: in.Kind, Priority: in.Priority,
			DependsOn: once(in.DependsOn), Labels: once(in.Labels), Scope: once(in.Scope), EverySeconds: in.EverySeconds, CreatedBy: in.By})
		return err
	})
	return out, err
}

// Todo returns one todo. Errors: errs.Usage unknown_todo.
func (e *Engine) Todo(id string) (records.Todo, error) {
	var t records.Todo
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
func (e *Engine) Todos(goal, status string) ([]records.Todo, error) {
	goals, err := e.goalsIn(goal)
	if err != nil {
		return nil, err
	}
	if statuses := []string{records.TodoOpen, records.TodoClaimed, records.TodoDone, records.TodoBlocked, records.TodoCancelled}; status != "" && !slices.Contains(statuses, status) {
		return nil, Usagef("bad_status", "status %q is not one of %v", status, statuses)
	}
	if err := e.settle(); err != nil { // seed spec todos
		return nil, err
	}
	return perGoal(e, goals, (*kernel.Tx).Todos, func(t records.Todo) bool { return status == "" || t.Status == status })
}

// SetTodoStatus marks a todo done, blocked, cancelled or open again, with a
// note, releasing any lease. Errors: errs.Usage unknown_todo / bad_status /
// too_long (a note over inert.MaxText characters).
func (e *Engine) SetTodoStatus(id, status, note, actor string) (records.Todo, error) {
	var t records.Todo
	if !slices.Contains([]string{records.TodoDone, records.TodoBlocked, records.TodoCancelled, records.TodoOpen}, status) {
		return t, Usagef("bad_status", "status %q is not done, blocked, cancelled or open", status)
	}
	if err := inert.CheckLen("the note (--note)", note, true); err != nil {
		return t, Usagef("too_long", "%v", err)
	}
	var cd claimDecision
	err := e.updatePrepared(context.Background(), query.Claim, func(tx *kernel.Tx) error {
		cd = claimDecision{}
		var err error
		t, err = tx.Todo(id)
		if IsNotFound(err) {
			return Usagef("unknown_todo", "unknown todo %q", id)
		}
		if err != nil {
			return err
		}
		if status == records.TodoDone {
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
			if cd, err = e.checkSettle(context.Background(), tx, t.Goal, who, actor != "human", input.ClaimFacts{Op: "done", Human: actor == "human", Todo: facts}); err != nil {
				return err
			}
		} else if actor != "human" {
			// An agent blocking, cancelling or reopening a todo: not one
			// another agent leases (data.loopx.claim, op settle).
			facts, err := e.claimTodoFacts(tx, t, actor)
			if err != nil {
				return err
			}
			if cd, err = e.checkSettle(context.Background(), tx, t.Goal, actor, true, input.ClaimFacts{Op: "settle", Status: status, Todo: facts}); err != nil {
				return err
			}
		}
		old := t.Status
		lease.Release(&t)
		t.Status, t.Note = status, note
		if err := tx.PutTodo(t); err != nil {
			return err
		}
		return tx.AppendEvent(records.Event{Kind: todoEventKind(status), Goal: t.Goal, Actor: actor, Subject: t.ID, Message: note,
			Data: map[string]any{"from": old}})
	})
	e.logClaim(cd)
	e.recordViolation(t.Goal, actor, err, map[string]any{"mutation": todoEventKind(status), "todo": id})
	if errs.CodeOf(err) == "leased_by_other" {
		e.audit(err, actor+" changing todo "+id, func(tx *kernel.Tx, re *errs.Error) error {
			return audit.TodoChange(tx, t.Goal, actor, id, todoEventKind(status), status, re)
		})
	}
	return t, err
}

// todoEventKind names the audit event of a status change ("todo.reopened"
// for open, else "todo.<status>").
func todoEventKind(status string) string {
	if status == records.TodoOpen {
		return "todo.reopened"
	}
	return "todo." + status
}

// once is xs with each entry kept at its first place only (a dependency
// or a label given twice is one).
func once(xs []string) []string {
	if len(xs) < 2 {
		return xs
	}
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
