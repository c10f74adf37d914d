# METADATA
# title: goal-without-quota
# description: |
#   Every goal needs at least one quota limit per window (quota.rounds,
#   quota.tokens or quota.cost_usd): without one its agents may spend
#   without bound.
# related_resources:
#   - description: the rule's documentation
#     ref: docs/policies.md#goal-without-quota
# custom:
#   severity: error
package loopx.lint.rules.goal_without_quota

import data.loopx.lint.lib

# METADATA
# description: Goals with none of quota.rounds, quota.tokens, quota.cost_usd.
violations contains lib.violation(rego.metadata.chain(), msg, $"goals.{gid}.quota", lib.spec_at(["goals", gid, "quota"])) if {
	some gid, goal in lib.goals
	not limited(lib.obj(goal))
	msg := $"goal {gid} has no quota limit: set quota.rounds, quota.tokens or quota.cost_usd, or its agents may spend without bound"
}

limited(goal) if {
	some k in ["rounds", "tokens", "cost_usd"]
	is_number(goal.quota[k])
}
