package loopx.permission_test

import data.loopx.permission

# hook_input is a permission input whose answer is an act with --agent
# named (actor) from a caller whose ancestry runs as agents.
hook_input(agent, actor, agents) := {
	"query": "permission", "agent": agent,
	"answer": {
		"actor": actor, "acting": {"mode": "act"},
		"channel": {"kind": "agent", "ancestry_checked": true, "acting_agents": agents},
	},
}

test_hook_decides_acting_and_permission_at_once if {
	h := permission.hook with input as hook_input("claude", "agent:claude", ["claude"])
	h.acting == {"verdict": "allow", "allow": true, "agent": "claude", "reasons": []}
	h.decision == permission.decision with input as hook_input("claude", "agent:claude", ["claude"])
}

test_hook_without_an_agent_decides_for_the_default if {
	h := permission.hook with input as hook_input("default", "", [])
	h.acting.agent == ""
	h.decision.verdict in {"allow", "defer", "ask", "deny"}
}

test_hook_refused_act_has_no_decision if {
	h := permission.hook with input as hook_input("claude", "agent:claude", ["codex"])
	h.acting.verdict == "deny"
	h.acting.reasons[0].code == "agent_mismatch"
	not h.decision
}

test_hook_acting_as_another_agent_has_no_decision if {
	h := permission.hook with input as hook_input("default", "", ["codex"])
	h.acting == {"verdict": "allow", "allow": true, "agent": "codex", "reasons": []}
	not h.decision
}
