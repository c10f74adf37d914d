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
	"github.com/loopx-dev/loopx/engine/hosts/registry"
	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/policies"
)

// RecordHooks records that hooks were installed for host in the settings
// file at path, which held original before (nil when there was none), and
// with --sandbox (sbPath not "") the sandbox edits made in the file at
// sbPath (hosts.Record; paths shown relative to the project root when
// inside it).
func (e *Engine) RecordHooks(host, path string, original []byte, hooks []hosts.Hook, sbPath string, sb []hosts.SandboxEdit) error {
	sbRel := ""
	if sbPath != "" {
		sbRel = e.displayPath(sbPath)
	}
	return hosts.Record(e.StateDir(), host, e.displayPath(path), hooks, sbRel, sb, original)
}

// HooksRecord returns the install record of the settings file at path
// (hosts.ReadInstalled), false when there is none, and the absolute path
// of its sandbox file ("" when install --sandbox never wrote one).
func (e *Engine) HooksRecord(path string) (hosts.Installed, string, bool, error) {
	recs, err := hosts.ReadInstalled(e.StateDir())
	if err != nil {
		return hosts.Installed{}, "", false, err
	}
	rel := e.displayPath(path)
	for _, r := range recs {
		if r.Settings == rel {
			sb := r.SandboxFile
			if sb != "" && !filepath.IsAbs(sb) {
				sb = filepath.Join(e.root, sb)
			}
			return r, sb, true, nil
		}
	}
	return hosts.Installed{}, "", false, nil
}

// SandboxFacts are what install --sandbox asks a host's own sandbox to
// keep from an agent: the protected set's project globs
// (policies.Protected) and the project's anchor directory.
func (e *Engine) SandboxFacts() (hosts.Sandbox, error) {
	dir, err := anchor.Dir(e.root)
	if err != nil {
		return hosts.Sandbox{}, err
	}
	return hosts.Sandbox{Protected: policies.Protected().Project(), Anchor: dir}, nil
}

// CheckHooks compares every recorded installation with its settings file
// now (hosts.CheckInstalled, each host's adapter from the registry).
func (e *Engine) CheckHooks() ([]hosts.Problem, error) {
	return hosts.CheckInstalled(e.root, e.StateDir(), registry.Lookup)
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
	pq, err := e.rules.compileRef(ctx, rulebook.AgentOnGoal, nil)
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
