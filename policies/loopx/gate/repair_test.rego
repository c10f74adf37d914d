package loopx.gate_test

import data.loopx.gate

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

restore(ch, actor) := d if {
	d := gate.restore with input as {"answer": {"actor": actor, "channel": ch}}
}

# Restoring loopx/: repair's channel checks, then "restore" typed back at
# the terminal.
test_restore_needs_a_human_who_types_restore_at_the_terminal if {
	restore(terminal("restore"), "human").allow
	codes(restore(terminal(null), "human")) == ["confirmation_pending"]
	codes(restore(terminal(""), "human")) == ["confirmation_required"]
	restore(terminal("adopt"), "human").reasons == [{"code": "confirmation_mismatch", "message": "typed \"adopt\", not \"restore\": nothing restored", "rule": "data.loopx.gate.restore", "ref": "loopx/"}]
	restore({"kind": "terminal", "tty": false}, "human").reasons[0].message == "restoring loopx/ needs a terminal to confirm on (stdin is not one); run loopx adopt --restore in your own terminal"
	codes(restore(terminal("restore"), "agent:a1")) == ["self_answer_forbidden"]
	codes(restore(object.union(terminal("restore"), {"in_round": true}), "human")) == ["self_answer_forbidden"]
}
