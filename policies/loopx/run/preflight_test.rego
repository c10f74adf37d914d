package loopx.run_test

import data.loopx.run

test_store_error_denies_with_text if {
	d := decide(object.union(base, {"health": {"store": "invalid database"}}))
	d.verdict == "deny"
	d.reasons == [{"code": "store_error", "message": "store unusable: invalid database", "rule": "data.loopx.run.health", "ref": ""}]
}

test_every_health_error_is_reported if {
	d := decide(object.union(base, {"health": {"spec": "loopx.cue:3:1: field not allowed", "policy": "bad"}}))
	codes(d) == ["spec_error", "policy_error"]
	contains(d.reasons[0].message, "loopx.cue:3:1: field not allowed")
}

test_goal_not_in_spec_denies if {
	d := decide(object.union(base, {"goal": "g9"}))
	d.verdict == "deny"
	d.reasons[0].code == "unknown_goal"
	d.reasons[0].ref == "goals.g9"
}

test_goal_flagged_not_in_spec_denies if {
	codes(decide(state({"goal": {"in_spec": false}}))) == ["unknown_goal"]
}

test_goal_status_skips if {
	every status in ["paused", "done", "archived"] {
		d := decide(state({"goal": {"status": status, "reason": "holiday freeze"}}))
		d.verdict == "skip"
		codes(d) == [$"goal_{status}"]
		d.reasons[0].message == $"goal g1 is {status}: holiday freeze"
	}
}

test_compute_zero_skips if {
	d := decide_spec(base, goal1({"quota": {"compute": 0}}))
	d.verdict == "skip"
	codes(d) == ["compute_zero"]
	d.reasons[0].ref == "goals.g1.quota.compute"
}

test_unknown_agent_denies if {
	d := decide(state({"agent": {"known": false}}))
	d.verdict == "deny"
	codes(d) == ["unknown_agent"]
}

test_agent_not_on_goal_denies if {
	d := decide_spec(base, goal1({"agents": ["claude"]}))
	d.verdict == "deny"
	codes(d) == ["agent_not_on_goal"]
	run.agent[0].ref == "goals.g1.agents" with input as base with data.loopx.spec as goal1({"agents": ["claude"]})
}

test_goal_status_without_reason if {
	d := decide(state({"goal": {"status": "paused", "reason": null}}))
	d.verdict == "skip"
	d.reasons[0].message == "goal g1 is paused"
	d2 := decide(json.patch(base, [{"op": "replace", "path": "/state/goal", "value": {"in_spec": true, "status": "done"}}]))
	d2.reasons[0].message == "goal g1 is done"
}

test_agent_registered_for_goal_runs if {
	d := decide_spec(state({"agent": {"goals": ["g1"]}}), goal1({"agents": ["claude"]}))
	d.verdict == "run"
}
