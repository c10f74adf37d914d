package loopx.lint.rules.unknown_preset_test

import data.loopx.lint.rules.unknown_preset as rule

test_unknown_preset_fails if {
	vs := rule.violations with input as {"spec": {"goals": {"g1": {"preset": "isue-fix"}}}, "presets": ["issue-fix", "release"]}
	[v.message | some v in vs] == [`goal g1 names preset "isue-fix", which does not exist (known: issue-fix, release)`]
	[v.location.path | some v in vs] == [["goals", "g1", "preset"]]
}

test_known_or_no_preset_passes if {
	inp := {"spec": {"goals": {"g1": {"preset": "release"}, "g2": {}}}, "presets": ["issue-fix", "release"]}
	count(rule.violations) == 0 with input as inp
}
