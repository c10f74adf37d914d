package loopx.repair_test

import data.loopx.repair

terminal(typed) := {"kind": "terminal", "in_round": false, "round_agent": "", "agent_ancestor": "", "tty": true, "tty_error": "", "typed": typed, "session": false}

codes(d) := [r.code | some r in d.reasons]

decide(ch, actor) := d if {
	d := repair.decision with input as {"answer": {"actor": actor, "channel": ch}}
}

test_repair_is_for_a_human_at_a_terminal_or_dashboard if {
	decide(terminal(null), "human").allow
	decide(object.union(terminal(null), {"tty": false}), "human").allow
	decide({"kind": "dashboard", "session": true}, "human").allow
	not decide({"kind": "dashboard"}, "human").allow
	not decide(terminal(null), "agent:codex").allow
	not decide({"kind": "agent"}, "human").allow
	not decide({"kind": "demo"}, "human").allow
	r := decide(object.union(terminal(null), {"in_round": true}), "human")
	r.reasons[0].code == "self_answer_forbidden"
	not decide(object.union(terminal(null), {"agent_ancestor": "process 9 runs in round r-1"}), "human").allow
	not decide({}, "").allow
}

test_repair_ignores_user_policies if {
	d := repair.decision with input as {"answer": {"actor": "human", "channel": terminal(null)}} with data.loopx.user.gate_answer.deny as {"everything"}
	d.allow
}

accept(ch) := d if {
	d := repair.accept_store with input as {"answer": {"actor": "human", "channel": ch}}
}

test_accept_store_needs_accept_typed_at_a_terminal if {
	accept(terminal("accept")).allow
	codes(accept(terminal(null))) == ["confirmation_pending"]
	codes(accept(terminal(""))) == ["confirmation_required"]
	codes(accept(terminal("yes"))) == ["confirmation_mismatch"]
	codes(accept(object.union(terminal(null), {"tty": false}))) == ["confirmation_required"]
	codes(accept(object.union(terminal("accept"), {"in_round": true}))) == ["self_answer_forbidden"]
	not accept({"kind": "agent"}).allow
	accept({"kind": "dashboard", "session": true}).allow
}

typed_repair(rule, ch) := d if {
	d := repair[rule] with input as {"answer": {"actor": "human", "channel": ch}}
}

test_uninstall_hooks_mark_reviewed_and_start_over_need_their_word_typed_at_a_terminal if {
	every rule, word in {"uninstall_hooks": "uninstall", "mark_reviewed": "mark", "start_over": "start over"} {
		typed_repair(rule, terminal(word)).allow
		codes(typed_repair(rule, terminal(null))) == ["confirmation_pending"]
		codes(typed_repair(rule, terminal(""))) == ["confirmation_required"]
		codes(typed_repair(rule, terminal("accept"))) == ["confirmation_mismatch"]
		codes(typed_repair(rule, object.union(terminal(null), {"tty": false}))) == ["confirmation_required"]
		codes(typed_repair(rule, object.union(terminal(word), {"in_round": true}))) == ["self_answer_forbidden"]
		not typed_repair(rule, {"kind": "agent"}).allow
		typed_repair(rule, {"kind": "dashboard", "session": true}).allow
	}
	typed_repair("uninstall_hooks", terminal("yes")).reasons[0].message == `typed "yes", not "uninstall": nothing removed`
	typed_repair("mark_reviewed", object.union(terminal(null), {"tty": false})).reasons[0].message == "marking the review needs a terminal to confirm on (stdin is not one); run loopx review --mark in your own terminal"
}
