package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/kernel/records"
)

// GoalStatus is one goal's summary for `loopx status`.
type GoalStatus struct {
	ID        string              `json:"id"`
	Objective string              `json:"objective"`
	Status    string              `json:"status"`
	Reason    string              `json:"reason,omitempty"`
	Quota     *parts.QuotaSummary `json:"quota"`
	// Todos counts todos by status.
	Todos map[string]int `json:"todos"`
	// NextTodos are the todos should_run would select, in its order (at
	// most 5; data.loopx.lib.next_todos).
	NextTodos []parts.TodoRef `json:"next_todos"`
	// ForYou are the open todos for humans, gate and action (at most 5).
	ForYou []parts.TodoRef `json:"for_you"`
	// NewestTodo is the most recently added open todo.
	NewestTodo  *parts.TodoRef    `json:"newest_todo"`
	OpenGates   []contract.Gate   `json:"open_gates"`
	LastRound   *contract.Round   `json:"last_round"`
	LastHandoff *contract.Handoff `json:"last_handoff"`
	// Evidence is the number of evidence records.
	Evidence int `json:"evidence"`
}

// Status is the project's summary (`loopx status`), built by the engine;
// StatusText renders it.
type Status struct {
	Root    string       `json:"root"`
	Project string       `json:"project"`
	Now     string       `json:"now"`
	State   uint64       `json:"state_revision"`
	Goals   []GoalStatus `json:"goals"`
}

// StatusText writes st as `loopx status` prints it: the project, then per
// goal its status, reason, quota, todo counts, the newest and next open
// todos, the todos for you (humans), open gates, the last round and the
// last handoff.
func StatusText(w io.Writer, st Status) {
	fmt.Fprintf(w, "project %s (%s)\n", st.Project, st.Root)
	for _, g := range st.Goals {
		fmt.Fprintf(w, "\ngoal %s [%s] %s\n", g.ID, g.Status, g.Objective)
		if g.Reason != "" {
			fmt.Fprintf(w, "  reason: %s\n", g.Reason)
		}
		if g.Quota != nil {
			fmt.Fprintf(w, "  quota: %s\n", QuotaLine(g.Quota))
		}
		fmt.Fprintf(w, "  todos: %d open, %d claimed, %d done, %d blocked; evidence: %d\n",
			g.Todos[records.TodoOpen], g.Todos[records.TodoClaimed], g.Todos[records.TodoDone], g.Todos[records.TodoBlocked], g.Evidence)
		if g.NewestTodo != nil {
			fmt.Fprintf(w, "  newest open todo: %s %s\n", g.NewestTodo.ID, g.NewestTodo.Title)
		}
		for _, t := range g.NextTodos {
			fmt.Fprintf(w, "  next: %s %s\n", t.ID, t.Title)
		}
		for _, t := range g.ForYou {
			fmt.Fprintf(w, "  for you: %s %s\n", t.ID, t.Title)
		}
		for _, gt := range g.OpenGates {
			fmt.Fprintf(w, "  gate %s open: %s %v\n", gt.ID, gt.Question, gt.Options)
		}
		if r := g.LastRound; r != nil {
			fmt.Fprintf(w, "  last round: %s by %s, %s %s\n", r.ID, r.Agent, r.Status, r.Outcome)
		}
		if h := g.LastHandoff; h != nil {
			fmt.Fprintf(w, "  last handoff: %s\n", handoffLine(h))
		}
	}
}

// handoffLine is a handoff's summary and the successor todo it asks for.
func handoffLine(h *contract.Handoff) string {
	parts := []string{}
	if h.Summary != "" {
		parts = append(parts, h.Summary)
	}
	if h.NextTodo != "" {
		next := "next todo: " + h.NextTodo
		if h.For != "" {
			next += " (for " + h.For + ")"
		}
		parts = append(parts, next)
	}
	return strings.Join(parts, "; ")
}
