package loopx.lint.rules.expired_lease_test

import data.loopx.lint.rules.expired_lease as rule

todo(status, lease) := {"id": "t-1", "goal": "g1", "status": status, "lease": lease}

lease(exp) := {"holder": "codex", "expires_at": exp, "released": false}

now := "2026-11-29T10:00:00Z"

test_expired_claimed_lease_warns if {
	vs := rule.violations with input as {"now": now, "state": {"todos": [todo("claimed", lease("2026-11-29T09:45:00Z"))]}}
	[v.message | some v in vs] == ["todo t-1 of goal g1 is marked claimed but its lease by codex expired at 2026-11-29T09:45:00Z: the next claim takes it over; until then it looks busy"]
	[v.location | some v in vs] == [{"file": ".loopx/state.db"}]
}

test_missing_or_released_lease_warns if {
	count(rule.violations) == 1 with input as {"now": now, "state": {"todos": [todo("claimed", null)]}}
	vs := rule.violations with input as {"now": now, "state": {"todos": [todo("claimed", object.union(lease("2026-11-29T11:00:00Z"), {"released": true}))]}}
	some v in vs
	contains(v.message, "was released")
}

test_live_lease_or_open_todo_passes if {
	count(rule.violations) == 0 with input as {"now": now, "state": {"todos": [
		todo("claimed", lease("2026-11-29T10:30:00Z")),
		todo("open", lease("2026-11-29T09:00:00Z")),
	]}}
}
