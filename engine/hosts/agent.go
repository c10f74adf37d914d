package hosts

import (
	"fmt"
	"regexp"
	"slices"
	"sync"

	"github.com/loopx-dev/loopx/internal/errs"
)

// CheckAgent checks that the agent a hook of host will decide for is
// declared in the spec (hostOf: each declared agent's host) with that
// host. Otherwise the hook would deny every call (unknown_agent): the
// error (errs.Usage unknown_agent, agent_host_mismatch) says what to add
// to the spec. Whether the agent may work on a goal is not decided here
// but by data.loopx.lib.agent_on_goal (see NotOnGoal).
func CheckAgent(hostOf map[string]string, host, agent string) error {
	h, ok := hostOf[agent]
	if !ok {
		return errs.Usagef("unknown_agent", "agent %q is not declared in the spec, so its hook would deny every call: add it to a file in loopx/, e.g.\n  agents: %s: {host: %q, role: \"executor\"}\n(and to goals.<goal>.agents where a goal lists its agents), then have a human run `loopx adopt` (a new agent loosens the rules); or pass --agent with a declared agent", agent, specKey(agent), host)
	}
	if h != host {
		return errs.Usagef("agent_host_mismatch", "agent %q is declared with host %q in the spec, not %q: install the hooks with --host %s, or pass --agent with an agent of host %s", agent, h, host, h, host)
	}
	return nil
}

// AgentPending is the error (errs.Usage unknown_agent) for a hook
// installed for an agent that loopx/ declares in a change no human has
// adopted: the rules in effect do not know it, so its hook would deny every
// call until `loopx adopt`.
func AgentPending(agent string) error {
	return errs.Usagef("unknown_agent", "agent %q is declared in loopx/, but that change is not adopted yet, so its hook would deny every call: have a human run `loopx adopt`, then install the hooks", agent)
}

// OnGoalPending is the error (errs.Usage agent_not_on_goal) for a hook
// installed for an agent that loopx/ adds to goal's agents in a change no
// human has adopted.
func OnGoalPending(agent, goal string) error {
	return errs.Usagef("agent_not_on_goal", "agent %q is added to goals.%s.agents in loopx/, but that change is not adopted yet, so its hook would deny every call: have a human run `loopx adopt`, then install the hooks", agent, goal)
}

// NotOnGoal is the error (errs.Usage agent_not_on_goal) for a hook
// installed for an agent that data.loopx.lib.agent_on_goal says may not
// work on goal, whose spec lists goalAgents: its hook would deny every
// call.
func NotOnGoal(agent, goal string, goalAgents []string) error {
	return errs.Usagef("agent_not_on_goal", "agent %q is not in goals.%s.agents %v, so its hook would deny every call: add it there (then a human runs `loopx adopt`), or have a human run `loopx agent register %s --goal %s`", agent, goal, goalAgents, agent, goal)
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

var validID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// CheckRegistration checks an agent registration (`loopx agent
// register`): its id, its host (one of known: the registry's hosts, which
// the spec schema's agents.<a>.host allows) and its mode (active or
// monitor_only, "" for the default). Errors: errs.Usage bad_agent,
// bad_host, bad_mode.
func CheckRegistration(id, host, mode string, known []string) error {
	if !validID().MatchString(id) {
		return errs.Usagef("bad_agent", "agent id %q: use letters, digits, '.', '_' or '-' (at most 64, starting with a letter or digit)", id)
	}
	if !slices.Contains(known, host) {
		return errs.Usagef("bad_host", "host %q is not one of %v", host, known)
	}
	if mode != "" && mode != "active" && mode != "monitor_only" {
		return errs.Usagef("bad_mode", "mode %q is not active or monitor_only", mode)
	}
	return nil
}
