package loopx.lint.rules.goal_left_spec_test

import data.loopx.lint.rules.goal_left_spec as rule

hint := ": if the goal was renamed, give it back its old id to keep them (state is kept by goal id); otherwise they stay unused"

test_goal_left_spec_warns_with_counts if {
	vs := rule.violations with input as {"state": {"left_spec": [
		{"id": "ship-v1", "todos": 3, "gates": 1, "ledger": 5},
		{"id": "old", "todos": 1, "gates": 0, "ledger": 1},
	]}}
	{[v.ref, v.message] | some v in vs} == {
		["goal ship-v1", $"goal \"ship-v1\" is not in the spec, but the store keeps its 3 todos, 1 gate, 5 quota ledger entries{hint}"],
		["goal old", $"goal \"old\" is not in the spec, but the store keeps its 1 todo, 1 quota ledger entry{hint}"],
	}
	every v in vs {
		v.severity == "warning"
		v.location == {"file": ".loopx/state.db"}
	}
}

test_nothing_kept_or_nothing_left_is_quiet if {
	count(rule.violations) == 0 with input as {"state": {"left_spec": [{"id": "x", "todos": 0, "gates": 0, "ledger": 0}]}}
	count(rule.violations) == 0 with input as {"state": {"left_spec": []}}
	count(rule.violations) == 0 with input as {"state": {}}
}
