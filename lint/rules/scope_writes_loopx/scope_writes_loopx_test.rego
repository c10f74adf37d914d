package loopx.lint.rules.scope_writes_loopx_test

import data.loopx.lint.rules.scope_writes_loopx as rule

goal(scope) := {"spec": {"goals": {"g1": {"scope": scope}}}}

test_everything_writable_fails_for_both_dirs if {
	vs := rule.violations with input as goal({"write": ["**"], "deny": []})
	count(vs) == 2
	msgs := {v.message | some v in vs}
	msgs == {
		`scope.write pattern "**" of goal g1 lets agents write loopx/loopx.cue: add "loopx/**" to scope.deny (loopx/ is loopx's own; the permission policy refuses it anyway)`,
		`scope.write pattern "**" of goal g1 lets agents write .loopx/state.db: add ".loopx/**" to scope.deny (.loopx/ is loopx's own; the permission policy refuses it anyway)`,
	}
	every v in vs {
		v.location.path == ["goals", "g1", "scope", "write"]
	}
}

test_partial_deny_reports_the_rest if {
	vs := rule.violations with input as goal({"write": ["**"], "deny": [".loopx/**"]})
	[v.message | some v in vs][0] == `scope.write pattern "**" of goal g1 lets agents write loopx/loopx.cue: add "loopx/**" to scope.deny (loopx/ is loopx's own; the permission policy refuses it anyway)`
	count(vs) == 1
}

test_policy_dir_glob_fails if {
	count(rule.violations) == 1 with input as goal({"write": ["loopx/policies/*.rego"]})
}

test_matching_deny_passes if {
	count(rule.violations) == 0 with input as goal({"write": ["**"], "deny": [".loopx/**", "loopx/**", ".env"]})
}

test_narrow_write_passes if {
	count(rule.violations) == 0 with input as goal({"write": ["api/**", "docs/**", "*.md"]})
}

test_no_write_globs_passes if {
	count(rule.violations) == 0 with input as goal({})
}
