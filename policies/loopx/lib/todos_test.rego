package loopx.lib_test

import data.loopx.lib

t(patch) := object.union({"id": "t-1", "kind": "task", "status": "open", "labels": [], "lease": null, "deps_open": [], "scope_conflict": ""}, patch)

executor := {"id": "codex", "role": "executor", "mode": "active"}

reviewer := {"id": "claude", "role": "reviewer", "mode": "active"}

test_agent_work_is_tasks_and_monitors if {
	lib.agent_work(t({}))
	lib.agent_work(t({"kind": "monitor"}))
	not lib.agent_work(t({"kind": "gate"}))
	not lib.agent_work(t({"kind": "action"}))
}

test_workable_is_open_or_claimed if {
	lib.workable(t({}))
	lib.workable(t({"status": "claimed"}))
	every s in ["done", "blocked", "cancelled", null] {
		not lib.workable(t({"status": s}))
	}
}

test_leases if {
	live := t({"lease": {"holder": "claude", "live": true}})
	lib.held_by_other(live, "codex")
	not lib.held_by_other(live, "claude")
	lib.held_by(live, "claude")
	expired := t({"lease": {"holder": "claude", "live": false}})
	not lib.held_by_other(expired, "codex")
	lib.abandoned(expired, "codex")
	not lib.abandoned(expired, "claude")
	not lib.abandoned(t({}), "codex")
}

test_deps_and_scope if {
	lib.deps_waiting(t({"deps_open": ["t-0"]}))
	not lib.deps_waiting(t({}))
	lib.scope_taken(t({"scope_conflict": "t-9"}))
	not lib.scope_taken(t({}))
	not lib.scope_taken(t({"scope_conflict": null}))
}

test_handed_todos if {
	h := t({"labels": ["for:claude", "x", 3]})
	lib.addressed(h) == {"claude"}
	lib.for_other(h, "codex")
	not lib.for_other(h, "claude")
	not lib.for_other(t({}), "codex")

	# an abandoned handed todo is anyone's
	not lib.for_other(object.union(h, {"lease": {"holder": "claude", "live": false}}), "codex")
}

test_roles if {
	review := t({"labels": ["review"]})
	lib.role_fits(review, reviewer)
	not lib.role_fits(review, executor)
	lib.role_fits(t({}), executor)
	not lib.role_fits(t({}), reviewer)
	lib.role_fits(t({"labels": ["for:claude"]}), reviewer)
	lib.role_fits(object.union(review, {"lease": {"holder": "claude", "live": false}}), executor)
	lib.role({}) == "executor"
	lib.role(reviewer) == "reviewer"
}

test_monitor_only if {
	watcher := {"id": "w", "role": "executor", "mode": "monitor_only"}
	lib.mode_fits(t({"kind": "monitor"}), watcher)
	not lib.mode_fits(t({}), watcher)
	lib.mode_fits(t({}), executor)
}

test_settled_reads_the_todo_alone if {
	todos := [t({}), t({"deps_open": ["t-0"]}), t({"status": "blocked"}), t({"kind": "gate"}), t({"lease": {"holder": "claude", "live": true}})]
	lib.settled(todos) == {"deps": {1}, "blocked": {2}, "human": {3}}
	s := lib.settled(todos)
	u := lib.unfit(todos, executor)
	every k, ids in s {
		u[k] == ids
	}
}

test_order_key_monitors_then_priority_then_age if {
	lib.order_key(t({"kind": "monitor", "priority": 4, "created_at": "b"})) < lib.order_key(t({"priority": 0, "created_at": "a"}))
	lib.order_key(t({"priority": 0, "created_at": "b"})) < lib.order_key(t({"priority": 1, "created_at": "a"}))
	lib.order_key(t({"priority": 1, "created_at": "a"})) < lib.order_key(t({"priority": 1, "created_at": "b"}))
}

test_claim_order_leaves_settled_todos_out_and_breaks_ties_by_index if {
	todos := [
		t({"priority": 2, "created_at": "a"}),
		t({"priority": 1, "created_at": "b"}),
		t({"priority": 1, "created_at": "b", "status": "blocked"}),
		t({"priority": 1, "created_at": "b"}),
		t({"kind": "monitor", "priority": 3, "created_at": "c"}),
		t({"kind": "action", "priority": 0, "created_at": "a"}),
		t({"priority": 0, "created_at": "a", "deps_open": ["t-9"]}),
	]
	lib.claim_order(todos) == [4, 1, 3, 0]
}
