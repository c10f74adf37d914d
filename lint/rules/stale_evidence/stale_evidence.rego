# METADATA
# title: stale-evidence
# description: |
#   The newest evidence of each kind for a goal must be younger than the
#   goal's evidence.stale_after: stale evidence (a test run from last week)
#   is no evidence for today's state. The snapshot carries the newest
#   record per goal and kind, with its age.
# related_resources:
#   - description: the rule's documentation
#     ref: docs/policies.md#stale-evidence
# custom:
#   severity: warning
package loopx.lint.rules.stale_evidence

import data.loopx.lint.lib

# METADATA
# description: Newest evidence of a kind older than evidence.stale_after.
violations contains lib.violation(rego.metadata.chain(), msg, $"evidence {e.id}", lib.state_at) if {
	some e in lib.state("evidence")
	policy := lib.obj(object.get(lib.goals, [object.get(e, "goal", ""), "evidence"], {}))
	limit := policy.stale_after_seconds
	is_number(limit)
	limit > 0
	a := age(e)
	a > limit
	msg := $"the newest {e.kind} evidence of goal {e.goal} ({e.id}: {object.get(e, "summary", "")}) is {lib.duration(a)} old, past evidence.stale_after {object.get(policy, "stale_after", lib.duration(limit))}: record fresh evidence before relying on it"
}

# age is e.age_seconds, or computed from e.created_at and input.now.
age(e) := e.age_seconds if is_number(e.age_seconds)

else := floor((lib.now - lib.instant(e.created_at)) / 1000000000)
