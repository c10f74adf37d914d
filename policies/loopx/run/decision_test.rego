package loopx.run_test

import data.loopx.run

# Fixtures shared by the loopx.run tests.
spec := {
	"project": {"name": "acme"},
	"agents": {"codex": {"host": "codex", "role": "executor", "mode": "active"}},
	"goals": {"g1": {
		"objective": "Ship v2",
		"agents": [],
		"quota": {
			"window": "24h", "window_seconds": 86400, "rounds": 2, "tokens": 1000, "cost_usd": 5,
			"min_interval": "10m", "min_interval_seconds": 600, "compute": 1,
		},
		"stall": {"max_no_progress": 3},
	}},
}

todo(id, priority, created_at) := {
	"id": id, "title": $"title {id}", "kind": "task", "status": "open", "priority": priority,
	"created_at": created_at, "deps_open": [], "lease": null, "due": false, "next_due_at": "", "labels": [],
}

lease(holder, live, expires_at) := {"holder": holder, "live": live, "expires_at": expires_at, "version": 3, "epoch": 1}

gate(id, kind, extra) := object.union(
	{
		"id": id, "name": "", "question": $"Approve {id}?", "options": ["approve", "reject"],
		"scope": {"kind": kind, "agents": null, "todos": null}, "guards": null,
		"raised_by": "human", "raised_at": "2026-11-29T09:00:00Z", "expires_at": "", "reason": "",
	},
	extra,
)

base := {
	"query": "should_run", "now": "2026-11-29T10:00:00Z", "goal": "g1", "agent": "codex",
	"health": {"store": "", "spec": "", "policy": ""},
	"state": {
		"revision": 7, "goal_revision": 3,
		"goal": {"id": "g1", "in_spec": true, "status": "active", "reason": ""},
		"agent": {"id": "codex", "known": true, "goals": [], "role": "executor", "mode": "active"},
		"gates": [],
		"todos": [todo("t-1", 2, "2026-11-28T10:00:00Z")],
		"quota": {
			"window_start": "2026-11-28T10:00:00Z", "rounds": 0, "tokens": 0, "cost_usd": 0,
			"compute_seconds": 0, "compute_limit_seconds": 86400, "resets_at": "",
			"last_round_at": "", "next_round_at": "", "min_interval_elapsed": true,
		},
		"progress": {"consecutive_no_progress": 0, "last_outcome": "", "last_todo": "", "changed_since_last": true},
	},
}

# state returns base with patch merged into input.state (objects merge, arrays replace).
state(patch) := object.union(base, {"state": patch})

decide(inp) := decide_spec(inp, spec)

# decide_spec decides under spec s with no user policy: the built-in
# rules' tests pass beside any user policies (`opa test` over both).
decide_spec(inp, s) := decide_user(inp, s, {})

# decide_user decides under spec s with user policies u (data.loopx.user).
decide_user(inp, s, u) := d if {
	d := run.decision with input as inp with data.loopx.spec as s with data.loopx.user as u
}

# goal1 returns spec with patch merged into goals.g1.
goal1(patch) := object.union(spec, {"goals": {"g1": patch}})

codes(d) := [r.code | some r in d.reasons]

test_run_selects_the_todo if {
	decide(base) == {
		"verdict": "run", "allow": true, "charge": true, "next_check_at": null,
		"todo": {"id": "t-1", "title": "title t-1", "kind": "task"},
		"reasons": [{
			"code": "todo_selected", "message": "t-1 title t-1 (P2, task)",
			"rule": "data.loopx.run.selected", "ref": "todo t-1",
		}],
	}
}

test_empty_input_denies_and_is_defined if {
	d := run.decision with input as {} with data.loopx.user as {}
	d.verdict == "deny"
	d.allow == false
	codes(d) == ["unknown_goal"]
	d.todo == null
	d.charge == false
}

test_missing_state_denies if {
	d := decide(object.remove(base, ["state"]))
	d.verdict == "deny"
	codes(d) == ["unknown_goal"]
}

test_odd_shapes_stay_defined if {
	every inp in [
		"not an object", [], null, 42,
		{"goal": 5, "agent": ["x"], "health": [1], "state": "x"},
		object.union(base, {"health": null, "state": {"gates": "x", "todos": {"a": 1}, "quota": [], "progress": 1}}),
		state({"gates": [null, 1, {"scope": 3}], "todos": [null, 3, {}, {"kind": "task", "status": "open", "lease": "x", "deps_open": 7}]}),
		state({"quota": {"resets_at": 5, "next_round_at": null, "min_interval_elapsed": false}}),
	] {
		d := decide(inp)
		d.verdict in {"run", "skip", "wait_human", "deny"}
		is_array(d.reasons)
		count(d.reasons) > 0
	}
}

test_health_outranks_everything if {
	d := decide(object.union(
		state({
			"goal": {"status": "paused"},
			"gates": [gate("g-1", "goal", {})],
			"quota": {"rounds": 9, "min_interval_elapsed": false},
		}),
		{"health": {"policy": "loopx/policies/x.rego:3: rego_parse_error"}},
	))
	d.verdict == "deny"
	codes(d) == ["policy_error"]
}

test_gate_outranks_quota if {
	d := decide(state({"gates": [gate("g-1", "goal", {})], "quota": {"rounds": 2}}))
	d.verdict == "wait_human"
	codes(d) == ["gate_open"]
}

test_stall_outranks_quota if {
	d := decide(state({"progress": {"consecutive_no_progress": 3}, "quota": {"rounds": 2}}))
	d.verdict == "wait_human"
	codes(d) == ["stall_limit"]
}

test_quota_outranks_min_interval if {
	d := decide(state({"quota": {"rounds": 2, "min_interval_elapsed": false, "next_round_at": "2026-11-29T10:10:00Z"}}))
	codes(d) == ["quota_exhausted"]
}

test_allow_and_charge_only_on_run if {
	every inp in [state({"quota": {"rounds": 2}}), state({"agent": {"known": false}})] {
		d := decide(inp)
		d.verdict != "run"
		d.allow == false
		d.charge == false
		d.todo == null
	}
}
