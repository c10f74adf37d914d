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

# decide decides with no user policy: the built-in rules' tests pass
# beside any user policies (`opa test` over both).
decide(inp) := d if {
	d := gate.decision with input as inp with data.loopx.user as {}
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
	d := gate.decision with input as base with data.loopx.user as {"gate_answer": {"deny": {"no answers on Fridays"}}}
	d.verdict == "deny"
	d.reasons == [{"code": "user_policy", "message": "no answers on Fridays", "rule": "data.loopx.user.gate_answer.deny", "ref": ""}]
	w := gate.decision with input as base with data.loopx.user as {"gate_answer": {"warn": {"answered late"}}}
	w.allow
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

test_a_gate_answer_never_carries_acting if {
	d := decide(answer({"actor": "agent:claude", "channel": acting([]), "acting": {"mode": "act"}}))
	d.verdict == "deny"
	"bad_request" in codes(d)
}
