package engine

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/pathfacts"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// RecordHooks records that hooks were installed for host in the settings
// file at path (hosts.Record; path shown relative to the project root
// when it is inside it).
func (e *Engine) RecordHooks(host, path string, hooks []hosts.Hook) error {
	return hosts.Record(e.StateDir(), host, e.displayPath(path), hooks)
}

// CheckHooks compares every recorded installation with its settings file
// now (hosts.CheckInstalled).
func (e *Engine) CheckHooks() ([]hosts.Problem, error) {
	return hosts.CheckInstalled(e.root, e.StateDir())
}

// displayPath is path relative to the project root when inside it.
func (e *Engine) displayPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, ok := pathfacts.Rel(pathfacts.Roots(e.root), abs); ok {
		return rel
	}
	return abs
}

// AgentOnGoal evaluates rulebook.AgentOnGoal, may agent work on goal (the
// built-in rule every decision asks), over the input a permission
// decision of agent on goal sees. Errors: the store's or the policy's.
func (e *Engine) AgentOnGoal(ctx context.Context, goal, agent string) (bool, error) {
	in, err := e.buildInput(Request{Query: query.Permission, Goal: goal, Agent: agent}, e.Now())
	if err != nil {
		return false, err
	}
	pq, err := e.compileRef(ctx, rulebook.AgentOnGoal, nil)
	if err != nil {
		return false, err
	}
	iv, err := input.Value(in)
	if err != nil {
		return false, err
	}
	return rulebook.EvalBool(ctx, pq, rulebook.AgentOnGoal, iv)
}

// UnrecordHooks drops the install record of the settings file path
// (hosts.Unrecord) and reports whether there was one.
func (e *Engine) UnrecordHooks(path string) (bool, error) {
	return hosts.Unrecord(e.StateDir(), e.displayPath(path))
}

// AuditHooksUninstalled appends a hooks.uninstalled event (actor human,
// subject the settings file, Data {"host", "removed"}) in its own
// transaction: a human took n of loopx's hook entries out of a host's
// settings. Errors: the store's.
func (e *Engine) AuditHooksUninstalled(host, path string, n int) error {
	rel := e.displayPath(path)
	return e.update(func(tx *kernel.Tx) error {
		return tx.AppendEvent(records.Event{Kind: "hooks.uninstalled", Actor: "human", Subject: rel,
			Message: fmt.Sprintf("loopx hooks uninstall: removed %d loopx hook entr%s from %s (%s)", n, map[bool]string{true: "y", false: "ies"}[n == 1], rel, host),
			Data:    map[string]any{"host": host, "removed": n}})
	})
}
