package loopx.adopt_test

import data.loopx.adopt

terminal(typed) := {"kind": "terminal", "in_round": false, "round_agent": "", "agent_ancestor": "", "tty": true, "tty_error": "", "typed": typed, "session": false}

codes(d) := [r.code | some r in d.reasons]

confirm(ch, actor) := d if {
	d := adopt.confirm with input as {"answer": {"actor": actor, "channel": ch}}
}

# Adopting the rules: repair's channel checks, then "adopt" typed back at
# the terminal.
test_adopt_needs_a_human_who_types_adopt_at_the_terminal if {
	confirm(terminal("adopt"), "human").allow
	confirm({"kind": "dashboard", "session": true, "typed": "adopt"}, "human").allow
	codes(confirm({"kind": "dashboard", "session": true, "typed": null}, "human")) == ["confirmation_pending"]
	codes(confirm({"kind": "dashboard", "session": true, "typed": "restore"}, "human")) == ["confirmation_mismatch"]
	codes(confirm(terminal(null), "human")) == ["confirmation_pending"]
	codes(confirm(terminal(""), "human")) == ["confirmation_required"]
	r := confirm(terminal("g-1"), "human").reasons
	r == [{"code": "confirmation_mismatch", "message": "typed \"g-1\", not \"adopt\": nothing adopted", "rule": "data.loopx.adopt.confirm", "ref": "loopx/"}]
	codes(confirm(object.union(terminal("adopt"), {"tty": false}), "human")) == ["confirmation_required"]
	codes(confirm(object.union(terminal("adopt"), {"tty_error": "open /dev/tty: no such device"}), "human")) == ["confirmation_required"]
}

test_adopt_is_refused_to_agents_before_any_confirmation if {
	codes(confirm(terminal("adopt"), "agent:codex")) == ["self_answer_forbidden"]
	codes(confirm({"kind": "agent", "typed": "adopt"}, "human")) == ["bad_channel"]
	codes(confirm(object.union(terminal("adopt"), {"in_round": true}), "human")) == ["self_answer_forbidden"]
	codes(confirm(object.union(terminal(null), {"agent_ancestor": "process 9 runs in round r-1"}), "human")) == ["self_answer_forbidden"]
	codes(confirm({"kind": "dashboard"}, "human")) == ["confirmation_required"]
	not confirm({}, "").allow
}

test_adopt_ignores_user_policies if {
	d := adopt.confirm with input as {"answer": {"actor": "human", "channel": terminal("adopt")}} with data.loopx.user.gate_answer.deny as {"everything"}
	d.allow
}

restore(ch, actor) := d if {
	d := adopt.restore with input as {"answer": {"actor": actor, "channel": ch}}
}

# Restoring loopx/: repair's channel checks, then "restore" typed back at
# the terminal.
test_restore_needs_a_human_who_types_restore_at_the_terminal if {
	restore(terminal("restore"), "human").allow
	codes(restore(terminal(null), "human")) == ["confirmation_pending"]
	codes(restore(terminal(""), "human")) == ["confirmation_required"]
	restore(terminal("adopt"), "human").reasons == [{"code": "confirmation_mismatch", "message": "typed \"adopt\", not \"restore\": nothing restored", "rule": "data.loopx.adopt.restore", "ref": "loopx/"}]
	restore({"kind": "terminal", "tty": false}, "human").reasons[0].message == "restoring loopx/ needs a terminal to confirm on (stdin is not one); run loopx adopt --restore in your own terminal"
	codes(restore(terminal("restore"), "agent:a1")) == ["self_answer_forbidden"]
	codes(restore(object.union(terminal("restore"), {"in_round": true}), "human")) == ["self_answer_forbidden"]
	restore({"kind": "dashboard", "session": true, "typed": "restore"}, "human").allow
	codes(restore({"kind": "dashboard", "session": true, "typed": ""}, "human")) == ["confirmation_required"]
}
