package loopx.lint.rules.stale_evidence_test

import data.loopx.lint.rules.stale_evidence as rule

spec := {"goals": {"g1": {"evidence": {"stale_after": "72h", "stale_after_seconds": 259200}}}}

ev(id, age) := {"id": id, "goal": "g1", "kind": "test", "summary": "go test ./...", "age_seconds": age}

test_stale_evidence_warns if {
	vs := rule.violations with input as {"spec": spec, "state": {"evidence": [ev("e-1", 4 * 86400)]}}
	[v.message | some v in vs] == ["the newest test evidence of goal g1 (e-1: go test ./...) is 4d old, past evidence.stale_after 72h: record fresh evidence before relying on it"]
	[v.severity | some v in vs] == ["warning"]
}

test_fresh_evidence_passes if {
	count(rule.violations) == 0 with input as {"spec": spec, "state": {"evidence": [ev("e-1", 3600), ev("e-2", 259200)]}}
}

test_age_from_created_at if {
	e := {"id": "e-9", "goal": "g1", "kind": "pr", "summary": "PR #4", "created_at": "2026-11-25T10:00:00Z"}
	vs := rule.violations with input as {"spec": spec, "state": {"evidence": [e]}, "now": "2026-11-29T10:00:00Z"}
	count(vs) == 1
	e2 := object.union(e, {"created_at": "2026-11-28T10:00:00Z"})
	count(rule.violations) == 0 with input as {"spec": spec, "state": {"evidence": [e2]}, "now": "2026-11-29T10:00:00Z"}
}

test_unknown_goal_or_bad_time_is_quiet if {
	inp := {"spec": spec, "now": "later", "state": {"evidence": [
		object.union(ev("e-1", 9999999), {"goal": "gone"}),
		{"id": "e-2", "goal": "g1", "kind": "x", "created_at": "long ago"},
	]}}
	count(rule.violations) == 0 with input as inp
}
