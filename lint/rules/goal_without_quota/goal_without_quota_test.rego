package loopx.lint.rules.goal_without_quota_test

import data.loopx.lint.rules.goal_without_quota as rule

test_goal_without_limits_fails if {
	vs := rule.violations with input as {"spec": {"goals": {"g1": {"quota": {"window": "24h", "min_interval": "0s", "compute": 1}}}}}
	count(vs) == 1
	some v in vs
	v.ref == "goals.g1.quota"
	v.location.path == ["goals", "g1", "quota"]
	startswith(v.message, "goal g1 has no quota limit")
}

test_goal_without_quota_block_fails if {
	count(rule.violations) == 1 with input as {"spec": {"goals": {"g1": {}}}}
}

test_any_limit_passes if {
	every q in [{"rounds": 24}, {"tokens": 1000}, {"cost_usd": 2.5}, {"rounds": 0}] {
		count(rule.violations) == 0 with input as {"spec": {"goals": {"g1": {"quota": q}}}}
	}
}
