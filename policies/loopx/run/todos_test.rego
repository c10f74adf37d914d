package loopx.run_test

import data.loopx.run

monitor(id, due, next_due_at) := object.union(todo(id, 3, "2026-11-20T10:00:00Z"), {"kind": "monitor", "due": due, "next_due_at": next_due_at})

picked(todos) := decide(state({"todos": todos})).todo.id

test_priority_first_then_age_then_input_order if {
	picked([todo("t-3", 2, "2026-11-01T00:00:00Z"), todo("t-2", 1, "2026-11-02T00:00:00Z")]) == "t-2"
	picked([todo("t-3", 1, "2026-11-02T00:00:00Z"), todo("t-2", 1, "2026-11-01T00:00:00Z")]) == "t-2"

	# Same instant: the engine lists todos in insertion order; the first wins.
	picked([todo("t-b", 1, "2026-11-01T00:00:00Z"), todo("t-a", 1, "2026-11-01T00:00:00Z")]) == "t-b"
}

test_due_monitor_before_urgent_task if {
	picked([todo("t-1", 0, "2026-11-01T00:00:00Z"), monitor("m-1", true, "")]) == "m-1"
}

test_own_live_claim_before_due_monitor if {
	mine := object.union(todo("t-9", 4, "2026-11-28T00:00:00Z"), {"status": "claimed", "lease": lease("codex", true, "2026-11-29T10:30:00Z")})
	picked([monitor("m-1", true, ""), todo("t-1", 0, "2026-11-01T00:00:00Z"), mine]) == "t-9"
}

test_expired_lease_is_claimable if {
	stale := object.union(todo("t-1", 2, "2026-11-28T00:00:00Z"), {"status": "claimed", "lease": lease("claude", false, "2026-11-29T09:00:00Z")})
	picked([stale]) == "t-1"
}

test_unclaimable_todos_are_not_selected if {
	held := object.union(todo("t-1", 0, "2026-11-01T00:00:00Z"), {"status": "claimed", "lease": lease("claude", true, "2026-11-29T10:30:00Z")})
	deps := object.union(todo("t-2", 0, "2026-11-01T00:00:00Z"), {"deps_open": ["t-1"]})
	human := object.union(todo("t-3", 0, "2026-11-01T00:00:00Z"), {"kind": "action"})
	blocked := object.union(todo("t-4", 0, "2026-11-01T00:00:00Z"), {"status": "blocked"})
	picked([held, deps, human, blocked, monitor("m-1", false, "2026-11-29T11:00:00Z"), todo("t-9", 4, "2026-11-29T00:00:00Z")]) == "t-9"
}

test_no_todo_counts_why_and_wakes_at_earliest if {
	held1 := object.union(todo("t-1", 0, "2026-11-01T00:00:00Z"), {"status": "claimed", "lease": lease("claude", true, "2026-11-29T10:45:00Z")})
	held2 := object.union(todo("t-2", 0, "2026-11-01T00:00:00Z"), {"status": "claimed", "lease": lease("cursor", true, "2026-11-29T10:30:00Z")})
	deps := object.union(todo("t-3", 0, "2026-11-01T00:00:00Z"), {"deps_open": ["t-1"]})
	d := decide(state({"todos": [held1, held2, deps]}))
	d.verdict == "skip"
	d.reasons == [{
		"code": "no_todo", "message": "3 todos: 2 held by other agents, 1 waiting on dependencies",
		"rule": "data.loopx.run.no_todo", "ref": "",
	}]
	d.next_check_at == "2026-11-29T10:30:00Z"
	decide(state({"todos": [held1, monitor("m-1", false, "2026-11-29T10:15:00Z")]})).next_check_at == "2026-11-29T10:15:00Z"
}

test_no_todos_at_all if {
	d := decide(state({"todos": null}))
	d.reasons[0].message == "no open todos"
	d.next_check_at == null
}

test_same_todo_without_change_skips if {
	d := decide(state({"progress": {"last_outcome": "no_change", "last_todo": "t-1", "changed_since_last": false}}))
	d.verdict == "skip"
	codes(d) == ["no_state_change"]
	d.reasons[0].ref == "todo t-1"
	d.charge == false
}

test_change_or_other_todo_runs if {
	decide(state({"progress": {"last_outcome": "no_change", "last_todo": "t-1", "changed_since_last": true}})).verdict == "run"
	decide(state({"progress": {"last_outcome": "no_change", "last_todo": "t-0", "changed_since_last": false}})).verdict == "run"
	decide(state({"progress": {"last_outcome": "progress", "last_todo": "t-1", "changed_since_last": false}})).verdict == "run"
}

# as_agent returns base with the asking agent's role and mode set.
as_agent(id, role, mode, todos) := object.union(state({"agent": {"id": id, "role": role, "mode": mode}, "todos": todos}), {"agent": id})

labelled(id, priority, labels) := object.union(todo(id, priority, "2026-11-28T00:00:00Z"), {"labels": labels})

test_review_todos_go_to_reviewers_only if {
	review := labelled("t-r", 0, ["review"])
	work := labelled("t-w", 4, [])
	as_agent_pick("claude", "reviewer", "active", [review, work]) == "t-r"
	as_agent_pick("codex", "executor", "active", [review, work]) == "t-w"
	d := decide(as_agent("claude", "reviewer", "active", [work]))
	d.verdict == "skip"
	d.reasons[0].message == "1 todo: 1 not review todos (this agent is a reviewer)"
	e := decide(as_agent("codex", "executor", "active", [review]))
	e.reasons[0].message == "1 todo: 1 review todos (for reviewers)"
}

test_handed_todo_goes_to_its_agent_whatever_the_role if {
	handed := labelled("t-h", 0, ["for:claude"])
	other := labelled("t-o", 4, [])
	as_agent_pick("claude", "reviewer", "active", [handed, other]) == "t-h"
	as_agent_pick("codex", "executor", "active", [handed, other]) == "t-o"
	d := decide(as_agent("codex", "executor", "active", [handed]))
	d.reasons[0].message == "1 todo: 1 handed to other agents"
}

test_monitor_only_agent_gets_monitors_only if {
	as_agent_pick("watcher", "executor", "monitor_only", [todo("t-1", 0, "2026-11-01T00:00:00Z"), monitor("m-1", true, "")]) == "m-1"
	d := decide(as_agent("watcher", "executor", "monitor_only", [todo("t-1", 0, "2026-11-01T00:00:00Z")]))
	d.verdict == "skip"
	d.reasons[0].message == "1 todo: 1 not monitors (this agent is monitor_only)"

	# An active agent still gets the task.
	as_agent_pick("codex", "executor", "active", [todo("t-1", 0, "2026-11-01T00:00:00Z"), monitor("m-1", false, "2026-11-29T11:00:00Z")]) == "t-1"
}

test_scope_conflict_is_skipped if {
	clash := object.union(todo("t-1", 0, "2026-11-01T00:00:00Z"), {"scope_conflict": "t-9"})
	picked([clash, todo("t-2", 3, "2026-11-01T00:00:00Z")]) == "t-2"
	d := decide(state({"todos": [clash]}))
	d.reasons[0].message == "1 todo: 1 overlapping a scope held by another agent"
}

as_agent_pick(id, role, mode, todos) := decide(as_agent(id, role, mode, todos)).todo.id

test_abandoned_todo_is_open_to_any_role if {
	stale := object.union(todo("t-1", 2, "2026-11-28T00:00:00Z"), {"status": "claimed", "labels": ["review", "for:claude"], "lease": lease("claude", false, "2026-11-29T09:00:00Z")})
	d := decide(state({"todos": [stale]}))
	d.todo.id == "t-1"
}

# frozen_deny stands for the user claim policies: it denies a todo titled
# "Frozen by the test".
frozen_deny(t) := [{"code": "frozen", "message": "frozen"} | t.title == "Frozen by the test"]

test_user_claim_deny_selects_another_todo if {
	frozen := object.union(todo("t-1", 0, "2026-11-01T00:00:00Z"), {"title": "Frozen by the test"})
	d := run.decision with input as state({"todos": [frozen, todo("t-2", 2, "2026-11-02T00:00:00Z")]})
		with data.loopx.spec as spec with data.loopx.user as {} with run.user_claim_deny as frozen_deny
	d.todo.id == "t-2"
	none := run.decision with input as state({"todos": [frozen]})
		with data.loopx.spec as spec with data.loopx.user as {} with run.user_claim_deny as frozen_deny
	none.verdict == "skip"
	none.reasons[0].message == "1 todo: 1 denied by a claim policy"
}
