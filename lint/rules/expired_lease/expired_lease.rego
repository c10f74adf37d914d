# METADATA
# title: expired-lease
# description: |
#   A todo marked claimed must hold a live lease: a claimed todo whose lease
#   expired, was released or is missing is an orphan (its agent crashed or
#   left). Another agent's claim takes it over; until then it looks busy.
# related_resources:
#   - description: the rule's documentation
#     ref: docs/policies.md#expired-lease
# custom:
#   severity: warning
package loopx.lint.rules.expired_lease

import data.loopx.lint.lib

# METADATA
# description: Claimed todos without a live lease.
violations contains lib.violation(rego.metadata.chain(), msg, $"todo {t.id}", lib.state_at) if {
	some t in lib.state("todos")
	t.status == "claimed"
	why := orphaned(t)
	msg := $"todo {t.id} of goal {object.get(t, "goal", "")} is marked claimed but {why}: the next claim takes it over; until then it looks busy"
}

orphaned(t) := "has no lease" if {
	not is_object(t.lease)
} else := $"its lease by {t.lease.holder} was released" if {
	t.lease.released == true
} else := $"its lease by {t.lease.holder} expired at {t.lease.expires_at}" if {
	lib.instant(t.lease.expires_at) <= lib.now
}
