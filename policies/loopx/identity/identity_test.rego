package loopx.identity_test

import data.loopx.identity

# acting is an agent channel whose ancestry runs as agents.
acting(agents) := {"kind": "agent", "round_agent": "", "ancestry_checked": true, "acting_agents": agents}

# The acting decision: the same identity rule, asked by every command that
# acts as an agent (mode act), by loopx mcp binding its session (bind) and
# by each call of a bound session (session).
act(actor, agents, extra) := d if {
	d := identity.acting with input as {"answer": {"actor": actor, "channel": acting(agents), "acting": object.union({"mode": "act"}, extra)}}
}

test_acting_as_the_ancestry_agent if {
	d := act("agent:claude", ["claude"], {})
	d == {"verdict": "allow", "allow": true, "agent": "claude", "reasons": []}
	act("", ["claude"], {}).agent == "claude"
}

test_acting_as_another_agent_is_refused if {
	d := act("agent:claude", ["codex"], {})
	d.verdict == "deny"
	d.agent == ""
	d.reasons == [{
		"code": "agent_mismatch",
		"message": "--agent claude: this command descends from agent codex's process and may act only as codex",
		"rule": "data.loopx.identity.refusals", "ref": "agents.claude",
	}]
	b := act("agent:claude", ["codex"], {"mode": "bind"})
	b.reasons[0].message == "--agent claude: this server descends from agent codex's process and may act only as codex"
}

test_acting_below_several_agents_is_refused_named_or_not if {
	every actor in ["agent:claude", "agent:codex", ""] {
		d := act(actor, ["claude", "codex"], {})
		d.reasons[0].code == "agent_mismatch"
		d.reasons[0].message == "the processes above this command run as several agents ([claude codex]): an agent acts only as itself, so none of them may act from here"
	}
	contains(act("", ["claude", "codex"], {"mode": "bind"}).reasons[0].message, "above this server")
}

test_a_human_acts_for_any_agent_without_an_agent_above if {
	act("agent:claude", [], {}) == {"verdict": "allow", "allow": true, "agent": "claude", "reasons": []}
	act("", [], {}).agent == ""
	act("agent:codex", [], {"mode": "bind"}).agent == "codex"
}

# $LOOPX_AGENT alone (no flag) names the actor of a command's events only
# when the ancestry carries that agent: from a plain shell it is a human.
test_an_env_agent_without_its_ancestry_is_a_human if {
	act("agent:claude", [], {"from_env": true}) == {"verdict": "allow", "allow": true, "agent": "", "reasons": []}
	act("agent:claude", ["claude"], {"from_env": true}).agent == "claude"
	act("agent:claude", ["codex"], {"from_env": true}).reasons[0].code == "agent_mismatch"
	d := identity.acting with input as {"answer": {"actor": "agent:claude", "channel": {"ancestry_checked": false, "acting_agents": []}, "acting": {"mode": "act", "from_env": true}}}
	d.agent == "claude"
}

test_acting_with_the_ancestry_unread_takes_the_name if {
	d := identity.acting with input as {"answer": {"actor": "agent:claude", "channel": {"ancestry_checked": false, "acting_agents": ["codex"]}, "acting": {"mode": "act"}}}
	d.allow
	d.agent == "claude"
}

test_session_acts_only_as_its_bound_agent if {
	act("agent:claude", [], {"mode": "session", "bound": "claude"}).agent == "claude"
	act("", [], {"mode": "session", "bound": "claude"}).agent == "claude"
	act("", [], {"mode": "session", "bound": ""}) == {"verdict": "allow", "allow": true, "agent": "", "reasons": []}
	m := act("agent:codex", [], {"mode": "session", "bound": "claude"}).reasons[0]
	m.code == "agent_mismatch"
	m.message == "this MCP session acts as agent claude (bound at start): it cannot act as \"codex\""
	u := act("agent:codex", [], {"mode": "session", "bound": ""}).reasons[0]
	u.code == "unbound_session"
	u.message == "this MCP session is bound to no agent, so it cannot act as \"codex\": start it with `loopx mcp --agent codex` from that agent's host"
}

test_acting_odd_inputs_deny_and_stay_defined if {
	every inp in [{}, null, {"answer": {"actor": "agent:claude"}}, {"answer": {"actor": "human", "acting": {"mode": "act"}}}, {"answer": {"actor": "agent:", "acting": {"mode": "act"}}}, {"answer": {"acting": {"mode": "answer"}}}, {"answer": {"acting": {}}}] {
		d := identity.acting with input as inp
		d.verdict == "deny"
		d.reasons[0].code == "bad_request"
	}
	d := identity.acting with input as {"answer": {"actor": "", "acting": {"mode": "sudo"}}}
	d.reasons[0].message == "input.answer.acting.mode sudo is not act, bind or session"
}

# A process in a round with no agent above: a command below it never acts
# as a human (an agent's process that left its runner and dropped
# LOOPX_AGENT still carries LOOPX_ROUND).
test_below_a_round_without_an_agent_is_never_a_human if {
	ch := object.union(acting([]), {"ancestry": [
		{"pid": 40, "start": 1, "cmd": "sh -c loopx todo cancel t-1", "round": "r-0000"},
		{"pid": 30, "start": 1, "cmd": "bash"},
	]})
	d := identity.acting with input as {"answer": {"actor": "", "channel": ch, "acting": {"mode": "act"}}}
	d.verdict == "deny"
	d.reasons[0].code == "agent_mismatch"
	d.reasons[0].message == "this command descends from process 40 (sh -c loopx todo cancel t-1), which runs in round r-0000, and no process above it runs as an agent: inside a round a command acts as the round's agent (under `loopx run`, or an agent host started with LOOPX_AGENT), never as a human; run it from your own terminal"
	env := identity.acting with input as {"answer": {"actor": "agent:a1", "channel": ch, "acting": {"mode": "act", "from_env": true}}}
	env.reasons[0].code == "agent_mismatch"

	# an agent above it, or an agent named for it: as before
	below := identity.acting with input as {"answer": {"actor": "", "channel": object.union(ch, {"acting_agents": ["a1"]}), "acting": {"mode": "act"}}}
	below.agent == "a1"
	named := identity.acting with input as {"answer": {"actor": "agent:a1", "channel": ch, "acting": {"mode": "act"}}}
	named.agent == "a1"
}
