package loopx.claim_test

import data.loopx.claim

todo(patch) := object.union(
	{
		"id": "t-1", "title": "Write the guide", "kind": "task", "status": "open", "priority": 2,
		"created_at": "2026-11-28T10:00:00.000000000Z", "deps_open": [], "lease": null, "due": false,
		"next_due_at": "", "labels": [], "scope_conflict": "", "goal": "g1", "note": "", "conflict": null,
	},
	patch,
)

gate(id, kind, extra) := object.union(
	{
		"id": id, "name": "", "question": "Merge the v2 branch now?", "options": ["approve", "reject"],
		"scope": {"kind": kind, "agents": [], "todos": []}, "guards": [],
		"raised_by": "human", "raised_at": "2026-11-29T09:00:00Z", "expires_at": "", "reason": "",
	},
	extra,
)

base := {
	"query": "claim", "now": "2026-11-29T10:00:00Z", "goal": "g1", "agent": "codex",
	"health": {"store": "", "spec": "", "policy": ""},
	"state": {
		"goal": {"id": "g1", "in_spec": true, "status": "active", "reason": ""},
		"agent": {"id": "codex", "known": true, "goals": [], "role": "executor", "mode": "active"},
		"gates": [], "todos": [],
	},
	"claim": {"op": "claim", "from": "", "todo": todo({})},
}

# with returns base with the claimed todo, the agent facts, the gates or the request patched.
with_todo(patch) := object.union(base, {"claim": {"todo": patch}})

with_agent(patch) := object.union(base, {"state": {"agent": patch}})

with_gates(gs) := object.union(base, {"state": {"gates": gs}})

# decide decides with no user policy: the built-in rules' tests pass
# beside any user policies (`opa test` over both).
decide(inp) := d if {
	d := claim.decision with input as inp with data.loopx.user as {}
}

codes(d) := [r.code | some r in d.reasons]

lease(holder, live) := {"holder": holder, "live": live, "expires_at": "2026-11-29T10:30:00Z", "version": 3, "epoch": 2}

test_open_task_is_allowed if {
	decide(base) == {"verdict": "allow", "allow": true, "reasons": []}
}

test_empty_and_odd_inputs_deny_and_stay_defined if {
	every inp in [{}, null, "x", [], {"claim": {"op": "steal", "todo": todo({})}}, {"claim": {"op": "claim"}}, {"claim": 7}] {
		d := decide(inp)
		d.verdict == "deny"
		d.allow == false
		count(d.reasons) > 0
	}
	codes(decide({"claim": {"op": "steal"}})) == ["bad_request"]
	codes(decide(object.union(base, {"claim": {"todo": null}}))) == ["bad_request"]
}

test_store_error_denies if {
	d := decide(object.union(base, {"health": {"store": "invalid database"}}))
	d.reasons[0] == {"code": "store_error", "message": "store unusable: invalid database", "rule": "data.loopx.claim.health", "ref": ""}
}

test_settled_todos_are_refused_with_their_note if {
	every s in ["done", "blocked", "cancelled"] {
		d := decide(with_todo({"status": s}))
		codes(d)[0] == $"todo_{s}"
		d.reasons[0].message == $"todo t-1 is {s}; it cannot be claimed"
		d.reasons[0].data == {"todo": "t-1", "status": s}
	}
	decide(with_todo({"status": "blocked", "note": "waiting for legal"})).reasons[0].message == "todo t-1 is blocked: waiting for legal; it cannot be claimed"
}

test_human_todos_are_not_agent_work if {
	d := decide(with_todo({"kind": "gate"}))
	d.reasons[0].code == "not_agent_work"
	d.reasons[0].message == "todo t-1 is a gate todo, for humans; agents claim task and monitor todos"
	d.reasons[0].data == {"todo": "t-1", "kind": "gate"}
}

test_unknown_agent_and_agent_not_on_goal if {
	codes(decide(with_agent({"known": false}))) == ["unknown_agent"]
	d := claim.decision with input as base with data.loopx.spec as {"goals": {"g1": {"agents": ["claude"]}}} with data.loopx.user as {}
	codes(d) == ["agent_not_on_goal"]
	d.reasons[0].message == "agent codex is not in the agents of goal g1"
	d.reasons[0].data == {"todo": "t-1", "agent": "codex", "role": "executor", "mode": "active"}
}

test_a_goal_removed_from_the_spec_is_no_one_s if {
	d := decide(object.union(base, {"state": {"goal": {"in_spec": false}}}))
	codes(d) == ["unknown_goal"]
	d.reasons[0].message == "goal g1 is not declared in the spec"
	renew := {"claim": {"op": "renew", "todo": {"status": "claimed", "lease": lease("codex", true)}}}
	codes(decide(object.union_n([base, {"state": {"goal": {"in_spec": false}}}, renew]))) == ["unknown_goal"]
}

test_renew_needs_a_known_agent_on_the_goal if {
	renew := {"claim": {"op": "renew", "todo": {"status": "claimed", "lease": lease("codex", true)}}}
	decide(object.union(base, renew)).allow
	codes(decide(object.union(with_agent({"known": false}), renew))) == ["unknown_agent"]
	d := claim.decision with input as object.union(base, renew) with data.loopx.spec as {"goals": {"g1": {"agents": ["claude"]}}} with data.loopx.user as {}
	codes(d) == ["agent_not_on_goal"]

	# a renew is not a new claim: an open gate does not stop it
	decide(object.union(with_gates([gate("g-1", "goal", {})]), renew)).allow
}

test_monitor_only_agent_takes_monitors if {
	d := decide(with_agent({"mode": "monitor_only"}))
	codes(d) == ["monitor_only"]
	d.reasons[0].message == "agent codex is monitor_only and todo t-1 is a task"
	decide(object.union(with_agent({"mode": "monitor_only"}), {"claim": {"todo": {"kind": "monitor"}}})).allow
}

test_handed_todo_is_its_agents if {
	d := decide(with_todo({"labels": ["for:claude", "for:cursor"]}))
	codes(d) == ["for_other_agent"]
	d.reasons[0].message == "todo t-1 was handed to claude, cursor"
	d.reasons[0].data.for == ["claude", "cursor"]
	decide(with_todo({"labels": ["for:codex"]})).allow
}

test_abandoned_lease_opens_a_handed_review_todo_to_anyone if {
	decide(with_todo({"status": "claimed", "labels": ["review", "for:claude"], "lease": lease("claude", false)})).allow
}

test_review_todos_and_reviewers if {
	d := decide(with_todo({"labels": ["review"]}))
	codes(d) == ["role_mismatch"]
	d.reasons[0].message == "todo t-1 is a review todo and agent codex is not a reviewer (role executor)"
	e := decide(with_agent({"role": "reviewer"}))
	codes(e) == ["role_mismatch"]
	e.reasons[0].message == "agent codex is a reviewer and todo t-1 is not labelled review"
	decide(object.union(with_agent({"role": "reviewer"}), {"claim": {"todo": {"labels": ["review"]}}})).allow
}

test_live_lease_of_another_agent_holds_the_todo if {
	d := decide(with_todo({"status": "claimed", "lease": lease("claude", true)}))
	codes(d) == ["already_claimed"]
	d.reasons[0].message == "todo t-1 is already claimed by claude until 2026-11-29T10:30:00Z (lease version 3, epoch 2)"
	d.reasons[0].data == {"todo": "t-1", "holder": "claude", "expires_at": "2026-11-29T10:30:00Z", "version": 3, "epoch": 2}

	# the holder itself, an expired lease, and a transfer by the holder pass
	decide(object.union(with_todo({"status": "claimed", "lease": lease("codex", true)}), {})).allow
	decide(with_todo({"status": "claimed", "lease": lease("claude", false)})).allow
	decide(object.union(with_todo({"status": "claimed", "lease": lease("claude", true)}), {"claim": {"op": "transfer", "from": "claude"}})).allow
	codes(decide(object.union(with_todo({"status": "claimed", "lease": lease("claude", true)}), {"claim": {"op": "transfer", "from": "cursor"}}))) == ["already_claimed"]
}

test_open_dependencies_refuse if {
	d := decide(with_todo({"deps_open": ["t-0", "t-9"]}))
	codes(d) == ["depends_on_open"]
	d.reasons[0].message == "todo t-1 depends on t-0, t-9, not done yet"
	d.reasons[0].data == {"todo": "t-1", "open": ["t-0", "t-9"]}
}

test_blocking_gates_refuse if {
	d := decide(with_gates([gate("g-1", "goal", {})]))
	codes(d) == ["gate_violation"]
	d.reasons[0].message == "claim of todo t-1 refused: gate g-1 is open: Merge the v2 branch now? (answer it with: loopx gate answer g-1 --option …)"
	d.reasons[0].ref == "gate g-1"
	codes(decide(with_gates([gate("g-2", "agent", {"scope": {"agents": ["codex"]}})]))) == ["gate_violation"]
	codes(decide(with_gates([gate("g-3", "todo", {"scope": {"todos": ["t-1"]}})]))) == ["gate_violation"]

	# fail closed: a scope kind loopx does not know blocks
	codes(decide(with_gates([gate("g-4", "team", {})]))) == ["gate_violation"]
}

test_unrelated_gates_let_the_claim_pass if {
	decide(with_gates([
		gate("g-2", "agent", {"scope": {"agents": ["claude"]}}),
		gate("g-3", "todo", {"scope": {"todos": ["t-2"]}}),
		gate("g-5", "action", {"guards": ["git.push"]}),
	])).allow
}

test_transfer_gate_message_names_the_new_holder if {
	d := decide(object.union(with_gates([gate("g-1", "goal", {})]), {"agent": "cursor", "claim": {"op": "transfer", "from": "codex"}}))
	startswith(d.reasons[0].message, "transfer of todo t-1 to cursor refused: gate g-1 is open")
}

test_scope_conflict_refuses if {
	c := {"todo": "t-9", "holder": "claude", "expires_at": "2026-11-29T10:30:00Z", "scope": "docs/**", "other_scope": "docs/index.md"}
	d := decide(with_todo({"conflict": c}))
	codes(d) == ["scope_conflict"]
	d.reasons[0].message == "todo t-1 writes docs/**, which overlaps docs/index.md of todo t-9 held by claude until 2026-11-29T10:30:00Z"
	d.reasons[0].data == c
	d.reasons[0].ref == "todo t-9"
}

test_first_reason_is_the_most_important if {
	d := decide(object.union(with_todo({"labels": ["review"], "deps_open": ["t-0"]}), {"state": {"gates": [gate("g-1", "goal", {})]}}))
	codes(d) == ["role_mismatch", "depends_on_open", "gate_violation"]
}

test_progress_ops_check_gates_only if {
	fin := object.union(base, {"claim": {"op": "finish", "round": "r-1", "outcome": "progress", "todo": {"status": "claimed", "labels": ["review"]}}})
	decide(fin).allow
	d := decide(object.union(fin, {"state": {"gates": [gate("g-1", "goal", {})]}}))
	codes(d) == ["gate_violation"]
	d.reasons[0].message == "finishing round r-1 as progress refused: gate g-1 is open: Merge the v2 branch now? (answer it with: loopx gate answer g-1 --option …)"
	done := object.union(base, {"agent": "", "claim": {"op": "done", "todo": {"status": "done"}}, "state": {"gates": [gate("g-3", "todo", {"scope": {"todos": ["t-1"]}})]}})
	startswith(decide(done).reasons[0].message, "marking todo t-1 done refused")

	# a round without a todo is still stopped by a goal gate
	codes(decide(object.union(base, {"claim": {"op": "finish", "todo": null}, "state": {"gates": [gate("g-1", "goal", {})]}}))) == ["gate_violation"]
}

test_finish_by_an_agent_no_longer_known_is_refused if {
	fin := object.union(base, {"claim": {"op": "finish", "round": "r-1", "outcome": "progress", "todo": {"status": "claimed"}}})
	d := decide(object.union(fin, {"state": {"agent": {"known": false}}}))
	codes(d) == ["unknown_agent"]
	d.reasons[0].message == "unknown agent codex: declare it in the spec or run loopx agent register"
}

test_finish_by_an_agent_taken_off_the_goal_is_refused if {
	fin := object.union(base, {"claim": {"op": "finish", "round": "r-1", "outcome": "progress", "todo": {"status": "claimed"}}})
	d := claim.decision with input as fin with data.loopx.spec as {"goals": {"g1": {"agents": ["claude"]}}} with data.loopx.user as {}
	codes(d) == ["agent_not_on_goal"]
	d.reasons[0].rule == "data.loopx.claim.known"
	on := claim.decision with input as fin with data.loopx.spec as {"goals": {"g1": {"agents": ["codex"]}}} with data.loopx.user as {}
	on.allow
}

test_evidence_waits_for_its_action_gate if {
	ev := object.union(base, {"claim": {"op": "evidence", "action": "git.push", "todo": null}})
	decide(ev).allow
	d := decide(object.union(ev, {"state": {"gates": [gate("g-5", "action", {"guards": ["git.push"]}), gate("g-1", "goal", {})]}}))
	codes(d) == ["gate_violation"]
	d.reasons[0].message == "evidence for guarded action git.push refused: gate g-5 is open: Merge the v2 branch now? (answer it with: loopx gate answer g-5 --option …)"
}

test_user_deny_wins_and_warnings_are_added if {
	d := claim.decision with input as base with data.loopx.user as {"claim": {
		"deny": {{"code": "freeze", "message": "release freeze"}},
		"warn": {"two claims already"},
	}}
	d.verdict == "deny"
	d.reasons == [
		{"code": "freeze", "message": "release freeze", "rule": "data.loopx.user.claim.deny", "ref": ""},
		{"code": "user_warning", "message": "two claims already", "rule": "data.loopx.user.claim.warn", "ref": ""},
	]
	w := claim.decision with input as base with data.loopx.user as {"claim": {"warn": {"heads up"}}}
	w.allow
	codes(w) == ["user_warning"]
}

test_an_agent_does_not_settle_a_todo_another_agent_leases if {
	leased := {"status": "claimed", "lease": lease("claude", true)}
	every op in ["done", "settle"] {
		d := decide(object.union(base, {"claim": {"op": op, "todo": leased}}))
		codes(d) == ["leased_by_other"]
		startswith(d.reasons[0].message, "todo t-1 is leased by claude until ")
		endswith(d.reasons[0].message, ": agent codex may not change it")

		# the holder itself, a human, and an expired lease are not refused
		decide(object.union(base, {"agent": "claude", "state": {"agent": {"id": "claude"}}, "claim": {"op": op, "todo": leased}})).allow
		decide(object.union(base, {"agent": "", "claim": {"op": op, "todo": leased}})).allow
		decide(object.union(base, {"claim": {"op": op, "todo": {"status": "claimed", "lease": lease("claude", false)}}})).allow
	}
}

test_a_monitor_is_never_ended_by_an_agent if {
	mon := {"kind": "monitor", "status": "claimed", "lease": lease("codex", true), "every_seconds": 900}
	want := "todo t-1 is a monitor: a round never completes it (it is due again 15m0s after each round); a human ends it with `loopx todo done t-1` or `loopx todo cancel t-1`"
	every req in [
		{"op": "finish", "round": "r-1", "outcome": "progress", "done": true},
		{"op": "finish", "round": "r-1", "outcome": "no_change", "done": true},
		{"op": "done"},
		{"op": "settle", "status": "blocked"},
		{"op": "settle", "status": "cancelled"},
	] {
		d := decide(object.union(base, {"claim": object.union(req, {"todo": mon})}))
		codes(d) == ["monitor_recurs"]
		d.reasons[0].message == want
		d.reasons[0].data == {"todo": "t-1", "every_seconds": 900}
	}

	# a progress round on it, reopening it, a human's done (asked under an
	# open gate), and a task done by its holder are not refused
	every req in [
		{"op": "finish", "round": "r-1", "outcome": "progress", "done": false},
		{"op": "settle", "status": "open"},
		{"op": "done", "human": true},
	] {
		decide(object.union(base, {"claim": object.union(req, {"todo": mon})})).allow
	}
	decide(object.union(base, {"claim": {"op": "done", "todo": {"status": "claimed", "lease": lease("codex", true)}}})).allow
}
