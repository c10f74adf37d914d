package loopx.lint_test

import data.loopx.lint

test_report_collects_every_rule if {
	r := lint.report with input as {
		"spec": {"goals": {"g1": {"objective": "x", "quota": {"window_seconds": 60, "min_interval_seconds": 120}}}},
		"state": {}, "now": "2026-11-29T10:00:00Z", "presets": [],
	}
	{v.rule | some v in r} == {"goal-without-quota", "min-interval-exceeds-window"}
}

test_report_of_nothing_is_empty if {
	count(lint.report) == 0 with input as {}
}
