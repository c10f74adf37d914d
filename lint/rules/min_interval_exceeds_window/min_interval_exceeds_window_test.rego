package loopx.lint.rules.min_interval_exceeds_window_test

import data.loopx.lint.rules.min_interval_exceeds_window as rule

quota(mi, mis, w, ws) := {"spec": {"goals": {"g1": {"quota": {"min_interval": mi, "min_interval_seconds": mis, "window": w, "window_seconds": ws}}}}}

test_longer_min_interval_fails if {
	vs := rule.violations with input as quota("10h", 36000, "6h", 21600)
	[v.message | some v in vs] == ["goal g1 has quota.min_interval 10h, longer than its quota.window 6h: at most one round can start per window"]
	[v.location.path | some v in vs] == [["goals", "g1", "quota", "min_interval"]]
}

test_shorter_or_equal_passes if {
	count(rule.violations) == 0 with input as quota("10m", 600, "24h", 86400)
	count(rule.violations) == 0 with input as quota("24h", 86400, "24h", 86400)
}
