package engine

import (
	"fmt"
	"path/filepath"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/pathfacts"
)

// HooksRecordFile (in .loopx/) records the hook entries `loopx hooks
// install` wrote (hosts.RecordFile).
const HooksRecordFile = hosts.RecordFile

// InstalledHooks is one settings file's record (hosts.Installed).
type InstalledHooks = hosts.Installed

// HookProblem is what `loopx doctor` reports about installed hooks
// (hosts.Problem).
type HookProblem = hosts.Problem

// RecordHooks records that hooks were installed for host in the settings
// file at path (hosts.Record; path shown relative to the project root
// when it is inside it).
func (e *Engine) RecordHooks(host, path string, hooks []hosts.Hook) error {
	return hosts.Record(e.StateDir(), host, e.displayPath(path), hooks)
}

// InstalledHooks returns the install records (hosts.ReadInstalled).
func (e *Engine) InstalledHooks() ([]InstalledHooks, error) { return hosts.ReadInstalled(e.StateDir()) }

// CheckHooks compares every recorded installation with its settings file
// now (hosts.CheckInstalled).
func (e *Engine) CheckHooks() ([]HookProblem, error) {
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

// RequireHookAgent checks, before `loopx hooks install`, that the agent the
// hook will decide for is declared in the spec (agents.<agent>), with the
// installed host, and — when goal is given and lists its agents — on that
// goal. Otherwise the hook would deny every call (unknown_agent): the
// error (an errs.Usage error, exit 2) says what to add to the spec.
func (e *Engine) RequireHookAgent(host, goal, agent string) error {
	if e.specErr != nil {
		return e.specErr
	}
	a, ok := e.spec.Spec.Agents[agent]
	if !ok {
		return Usagef("unknown_agent", "agent %q is not declared in the spec, so its hook would deny every call: add it to a file in loopx/, e.g.\n  agents: %s: {host: %q, role: \"executor\"}\n(and to goals.<goal>.agents where a goal lists its agents), or pass --agent with a declared agent", agent, specKey(agent), host)
	}
	if a.Host != host {
		return Usagef("agent_host_mismatch", "agent %q is declared with host %q in the spec, not %q: install the hooks with --host %s, or pass --agent with an agent of host %s", agent, a.Host, host, a.Host, host)
	}
	if goal == "" {
		return nil
	}
	if err := e.RequireGoal(goal); err != nil {
		return err
	}
	if g := e.facts().GoalSpec(goal); len(g.Agents) > 0 && !containsString(g.Agents, agent) {
		return Usagef("agent_not_on_goal", "agent %q is not in goals.%s.agents %v, so its hook would deny every call: add it there", agent, goal, g.Agents)
	}
	return nil
}

// specKey quotes an agent id as a CUE field name when it needs quoting.
func specKey(id string) string {
	for i, r := range id {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return fmt.Sprintf("%q", id)
		}
	}
	return id
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
