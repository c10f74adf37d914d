# METADATA
# title: broken-dependency
# description: |
#   A todo that is not done or cancelled must not depend on a todo that
#   does not exist or was cancelled: it would wait forever.
# related_resources:
#   - description: the rule's documentation
#     ref: docs/policies.md#broken-dependency
# custom:
#   severity: error
package loopx.lint.rules.broken_dependency

import data.loopx.lint.lib

by_id[t.id] := t if some t in lib.state("todos")

# METADATA
# description: Live todos depending on missing or cancelled todos.
violations contains lib.violation(rego.metadata.chain(), msg, $"todo {t.id}", lib.state_at) if {
	some t in lib.state("todos")
	not t.status in {"done", "cancelled"}
	some d in lib.strs(object.get(t, "depends_on", []))
	why := problem(d)
	msg := $"todo {t.id} of goal {object.get(t, "goal", "")} depends on {d}, which {why}: it can never run; remove the dependency or cancel the todo"
}

problem(d) := "does not exist" if {
	not by_id[d]
} else := "was cancelled" if {
	by_id[d].status == "cancelled"
}
