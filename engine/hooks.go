package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/pathfacts"
)

// HooksRecordFile (in .loopx/) records the hook entries `loopx hooks
// install` wrote, per settings file, so that `loopx doctor` can tell when
// they were removed or changed (an agent switching its hooks off).
const HooksRecordFile = "hooks.json"

// InstalledHooks is one settings file's record in HooksRecordFile.
type InstalledHooks struct {
	// Host is claude-code or codex.
	Host string `json:"host"`
	// Settings is the settings file: relative to the project root when it
	// is inside it, else absolute.
	Settings string `json:"settings"`
	// Hooks are the entries loopx installed there.
	Hooks []InstalledHook `json:"hooks"`
}

// InstalledHook is one installed entry (hosts.Hook in JSON).
type InstalledHook struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// HookProblem is what `loopx doctor` reports about installed hooks: the
// settings file and what is wrong with one of loopx's entries in it.
type HookProblem struct {
	Host     string `json:"host"`
	Settings string `json:"settings"`
	Problem  string `json:"problem"`
	// Fix is the command that installs the entries again.
	Fix string `json:"fix"`
}

// RecordHooks records that hooks were installed for host in the settings
// file at path (replacing an earlier record of the same file).
func (e *Engine) RecordHooks(host, path string, hooks []hosts.Hook) error {
	recs, err := e.InstalledHooks()
	if err != nil {
		return err
	}
	rel := e.displayPath(path)
	rec := InstalledHooks{Host: host, Settings: rel}
	for _, h := range hooks {
		rec.Hooks = append(rec.Hooks, InstalledHook{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Timeout: h.Timeout})
	}
	out := []InstalledHooks{rec}
	for _, r := range recs {
		if r.Settings != rel {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Settings < out[j].Settings })
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(e.StateDir(), 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(e.StateDir(), "."+HooksRecordFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(e.StateDir(), HooksRecordFile))
}

// InstalledHooks returns the install records (none when hooks were never
// installed). A record file that does not decode is an error.
func (e *Engine) InstalledHooks() ([]InstalledHooks, error) {
	b, err := os.ReadFile(filepath.Join(e.StateDir(), HooksRecordFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []InstalledHooks
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(e.StateDir(), HooksRecordFile), err)
	}
	return recs, nil
}

// CheckHooks compares every recorded installation with its settings file
// now (hosts.CheckSettings): a file that is gone, unreadable, or whose
// loopx entries are missing or changed is a problem. No records, no
// problems.
func (e *Engine) CheckHooks() ([]HookProblem, error) {
	recs, err := e.InstalledHooks()
	if err != nil {
		return nil, err
	}
	var out []HookProblem
	for _, r := range recs {
		path := r.Settings
		if !filepath.IsAbs(path) {
			path = filepath.Join(e.root, path)
		}
		want := make([]hosts.Hook, 0, len(r.Hooks))
		fix := "loopx hooks install --host " + r.Host
		for i, h := range r.Hooks {
			want = append(want, hosts.Hook{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Timeout: h.Timeout})
			if args, ok := strings.CutPrefix(h.Command, hosts.HookCommand(r.Host, h.Event, "")); ok && i == 0 {
				fix += args
			}
		}
		if def := map[string]string{hosts.ClaudeCode: ".claude/settings.json", hosts.Codex: ".codex/hooks.json"}[r.Host]; r.Settings != def {
			fix += " --settings " + r.Settings
		}
		b, err := os.ReadFile(path)
		if err != nil {
			msg := fmt.Sprintf("cannot read it (%v): every loopx hook is gone", err)
			if errors.Is(err, os.ErrNotExist) {
				msg = "the file is gone: every loopx hook is gone"
			}
			out = append(out, HookProblem{Host: r.Host, Settings: r.Settings, Problem: msg, Fix: fix})
			continue
		}
		for _, p := range hosts.CheckSettings(b, want) {
			out = append(out, HookProblem{Host: r.Host, Settings: r.Settings, Problem: p, Fix: fix})
		}
	}
	return out, nil
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
	if g := e.goalSpec(goal); len(g.Agents) > 0 && !containsString(g.Agents, agent) {
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
