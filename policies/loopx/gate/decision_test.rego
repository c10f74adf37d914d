package loopx.gate_test

import data.loopx.gate

g := {
	"id": "g-1", "goal": "g1", "status": "open", "question": "Merge the v2 branch now?",
	"options": ["approve", "reject"], "answerers": ["human", "agent:claude"], "raised_by": "codex",
}

terminal(typed) := {"kind": "terminal", "in_round": false, "round_agent": "", "agent_ancestor": "", "tty": true, "tty_error": "", "typed": typed, "session": false}

base := {
	"query": "gate_answer", "now": "2026-11-29T10:00:00Z", "goal": "g1", "agent": "",
	"health": {"store": "", "spec": "", "policy": ""},
	"answer": {"gate": g, "option": "approve", "actor": "human", "note": "", "channel": terminal("g-1"), "project": {"demo": false}},
}

# answer returns base with patch merged into input.answer.
answer(patch) := object.union(base, {"answer": patch})

via(ch) := answer({"channel": ch})

decide(inp) := d if {
	d := gate.decision with input as inp
}

codes(d) := [r.code | some r in d.reasons]

first(inp) := decide(inp).reasons[0]

test_confirmed_human_answer_is_allowed if {
	decide(base) == {"verdict": "allow", "allow": true, "reasons": []}
}

test_odd_inputs_deny_and_stay_defined if {
	every inp in [{}, null, "x", {"answer": 3}, {"answer": {"gate": "g-1"}}] {
		d := decide(inp)
		d.verdict == "deny"
		count(d.reasons) > 0
	}
	codes(decide({})) == ["bad_request", "bad_request", "bad_channel"]
	first(answer({"actor": "root"})).code == "bad_request"
}

test_store_error_denies if {
	first(object.union(base, {"health": {"store": "invalid database"}})).code == "store_error"
}

test_closed_gate if {
	r := first(answer({"gate": {"status": "approve"}}))
	r == {"code": "gate_closed", "message": "gate g-1 is already closed (approve)", "rule": "data.loopx.gate.closed", "ref": "gate g-1"}
}

test_unknown_option if {
	first(answer({"option": "maybe"})).message == "option \"maybe\" is not one of gate g-1's options [approve reject]"
}

test_human_inside_a_round if {
	r := first(via(object.union(terminal("g-1"), {"in_round": true})))
	r.code == "self_answer_forbidden"
	contains(r.message, "runs inside an agent round")
}

test_agent_answers_only_as_itself if {
	r := first(answer({"actor": "human", "channel": object.union(terminal("g-1"), {"kind": "agent", "round_agent": "codex"})}))
	r.code == "self_answer_forbidden"
	r.message == "this command runs as agent codex (LOOPX_AGENT): it may answer only as agent:codex, not human"
	first(answer({"actor": "agent:claude", "channel": {"kind": "agent", "round_agent": "codex"}})).code == "self_answer_forbidden"
	contains(first(answer({"channel": {"kind": "agent"}})).message, "an agent's channel cannot give one")
}

test_raiser_cannot_answer if {
	r := first(answer({"actor": "agent:codex", "channel": {"kind": "agent", "round_agent": "codex"}, "gate": {"answerers": ["agent:codex"]}}))
	r == {"code": "self_answer_forbidden", "message": "agent:codex raised gate g-1 and cannot answer it", "rule": "data.loopx.gate.raiser", "ref": "gate g-1"}
}

test_peer_answerer_through_the_agent_channel if {
	decide(answer({"actor": "agent:claude", "channel": {"kind": "agent", "round_agent": "claude"}})).allow
	decide(answer({"actor": "agent:claude", "channel": {"kind": "agent", "round_agent": ""}})).allow
}

test_not_an_answerer if {
	r := first(answer({"actor": "agent:cursor", "channel": {"kind": "agent", "round_agent": ""}}))
	r.code == "not_answerer"
	r.message == "agent:cursor may not answer gate g-1 (answerers: [human agent:claude])"
	first(answer({"gate": {"answerers": ["agent:claude"]}})).code == "not_answerer"
}

test_agents_answer_only_through_their_channel if {
	r := first(answer({"actor": "agent:claude"}))
	r.code == "bad_channel"
	r.message == "agent:claude is an agent: agents answer through their own channel, not the terminal"
}

test_unknown_channel_fails_closed if {
	every k in ["", "email", null] {
		first(via(object.union(terminal("g-1"), {"kind": k}))).code == "bad_channel"
	}
}

test_terminal_confirmation_steps if {
	a := first(via(object.union(terminal("g-1"), {"agent_ancestor": "process 12 is the agent host claude"})))
	a.code == "self_answer_forbidden"
	a.message == "gate g-1 needs a human answer, and this command descends from an agent (process 12 is the agent host claude): answer it from your own terminal"
	n := first(via(object.union(terminal("g-1"), {"tty": false})))
	n.message == "answering gate g-1 as a human needs a terminal to confirm on (stdin is not one); run it in your own terminal"
	o := first(via(object.union(terminal("g-1"), {"tty_error": "open /dev/tty: no such device"})))
	o.message == "answering gate g-1 as a human needs a terminal to confirm on (none here: open /dev/tty: no such device); run it in your own terminal"
	codes(decide(via(terminal(null)))) == ["confirmation_pending"]
	first(via(terminal(""))).message == "no confirmation typed: nothing recorded"
	m := first(via(terminal("g-nope")))
	m.code == "confirmation_mismatch"
	m.message == "typed \"g-nope\", not the gate id g-1: nothing recorded"
}

test_dashboard_needs_its_session if {
	decide(via({"kind": "dashboard", "session": true})).allow
	first(via({"kind": "dashboard", "session": false})).code == "confirmation_required"
}

test_demo_channel_only_in_a_demo_project if {
	first(via({"kind": "demo"})).code == "demo_only"
	decide(answer({"channel": {"kind": "demo"}, "project": {"demo": true}})).allow
}

test_reasons_keep_their_order if {
	d := decide(answer({"option": "maybe", "gate": {"status": "reject"}, "channel": object.union(terminal(null), {"in_round": true})}))
	codes(d) == ["gate_closed", "unknown_option", "self_answer_forbidden", "confirmation_pending"]
}

test_user_deny_wins if {
	d := gate.decision with input as base with data.loopx.user.gate_answer.deny as {"no answers on Fridays"}
	d.verdict == "deny"
	d.reasons == [{"code": "user_policy", "message": "no answers on Fridays", "rule": "data.loopx.user.gate_answer.deny", "ref": ""}]
	w := gate.decision with input as base with data.loopx.user.gate_answer.warn as {"answered late"}
	w.allow
}

repair(ch, actor) := d if {
	d := gate.repair with input as {"answer": {"actor": actor, "channel": ch}}
}

test_repair_is_for_a_human_at_a_terminal_or_dashboard if {
	repair(terminal(null), "human").allow
	repair(object.union(terminal(null), {"tty": false}), "human").allow
	repair({"kind": "dashboard", "session": true}, "human").allow
	not repair({"kind": "dashboard"}, "human").allow
	not repair(terminal(null), "agent:codex").allow
	not repair({"kind": "agent"}, "human").allow
	not repair({"kind": "demo"}, "human").allow
	r := repair(object.union(terminal(null), {"in_round": true}), "human")
	r.reasons[0].code == "self_answer_forbidden"
	not repair(object.union(terminal(null), {"agent_ancestor": "process 9 runs in round r-1"}), "human").allow
	not repair({}, "").allow
}

test_repair_ignores_user_policies if {
	d := gate.repair with input as {"answer": {"actor": "human", "channel": terminal(null)}} with data.loopx.user.gate_answer.deny as {"everything"}
	d.allow
}

# Who is acting: --as agent:X is checked against the agents the caller's
# ancestors run as (engine Acting), never trusted.
acting(agents) := {"kind": "agent", "round_agent": "", "ancestry_checked": true, "acting_agents": agents}

test_agent_acts_only_as_its_ancestors_agent if {
	decide(answer({"actor": "agent:claude", "channel": acting(["claude"])})).allow
	r := first(answer({"actor": "agent:claude", "channel": acting(["codex"])}))
	r.code == "self_answer_forbidden"
	contains(r.message, "descends from agent codex's process")
}

test_agent_without_agent_ancestor_is_refused if {
	r := first(answer({"actor": "agent:claude", "channel": acting([])}))
	r.code == "self_answer_forbidden"
	contains(r.message, "loopx run --agent claude")
}

test_ancestors_of_two_agents_refuse_both if {
	every a in ["agent:claude", "agent:codex"] {
		first(answer({"actor": a, "channel": acting(["claude", "codex"])})).code == "self_answer_forbidden"
	}
}

test_ancestry_unchecked_keeps_the_environment_rules if {
	decide(answer({"actor": "agent:claude", "channel": object.union(acting([]), {"ancestry_checked": false})})).allow
}

adopt(ch, actor) := d if {
	d := gate.adopt with input as {"answer": {"actor": actor, "channel": ch}}
}

# Adopting the rules: repair's channel checks, then "adopt" typed back at
# the terminal.
test_adopt_needs_a_human_who_types_adopt_at_the_terminal if {
	adopt(terminal("adopt"), "human").allow
	adopt({"kind": "dashboard", "session": true}, "human").allow
	codes(adopt(terminal(null), "human")) == ["confirmation_pending"]
	codes(adopt(terminal(""), "human")) == ["confirmation_required"]
	r := adopt(terminal("g-1"), "human").reasons
	r == [{"code": "confirmation_mismatch", "message": "typed \"g-1\", not \"adopt\": nothing adopted", "rule": "data.loopx.gate.adopt", "ref": "loopx/"}]
	codes(adopt(object.union(terminal("adopt"), {"tty": false}), "human")) == ["confirmation_required"]
	codes(adopt(object.union(terminal("adopt"), {"tty_error": "open /dev/tty: no such device"}), "human")) == ["confirmation_required"]
}

test_adopt_is_refused_to_agents_before_any_confirmation if {
	codes(adopt(terminal("adopt"), "agent:codex")) == ["self_answer_forbidden"]
	codes(adopt({"kind": "agent", "typed": "adopt"}, "human")) == ["bad_channel"]
	codes(adopt(object.union(terminal("adopt"), {"in_round": true}), "human")) == ["self_answer_forbidden"]
	codes(adopt(object.union(terminal(null), {"agent_ancestor": "process 9 runs in round r-1"}), "human")) == ["self_answer_forbidden"]
	codes(adopt({"kind": "dashboard"}, "human")) == ["confirmation_required"]
	not adopt({}, "").allow
}

test_adopt_ignores_user_policies if {
	d := gate.adopt with input as {"answer": {"actor": "human", "channel": terminal("adopt")}} with data.loopx.user.gate_answer.deny as {"everything"}
	d.allow
}

# The acting decision: the same identity rule, asked by every command that
# acts as an agent (mode act), by loopx mcp binding its session (bind) and
# by each call of a bound session (session).
act(actor, agents, extra) := d if {
	d := gate.acting with input as {"answer": {"actor": actor, "channel": acting(agents), "acting": object.union({"mode": "act"}, extra)}}
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
		"rule": "data.loopx.gate.identity", "ref": "agents.claude",
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

test_acting_with_the_ancestry_unread_takes_the_name if {
	d := gate.acting with input as {"answer": {"actor": "agent:claude", "channel": {"ancestry_checked": false, "acting_agents": ["codex"]}, "acting": {"mode": "act"}}}
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
		d := gate.acting with input as inp
		d.verdict == "deny"
		d.reasons[0].code == "bad_request"
	}
	d := gate.acting with input as {"answer": {"actor": "", "acting": {"mode": "sudo"}}}
	d.reasons[0].message == "input.answer.acting.mode sudo is not act, bind or session"
}

test_a_gate_answer_never_carries_acting if {
	d := decide(answer({"actor": "agent:claude", "channel": acting([]), "acting": {"mode": "act"}}))
	d.verdict == "deny"
	"bad_request" in codes(d)
}
