# METADATA
# title: goal-left-spec
# description: |
#   State is keyed by goal id: when a goal leaves the spec (renamed or
#   removed), its todos, gates and spent quota stay in the store under the
#   old id, out of sight — a renamed goal starts with no todos and a fresh
#   quota window. Each such goal is named with what it keeps.
# related_resources:
#   - description: the rule's documentation
#     ref: docs/policies.md#goal-left-spec
# custom:
#   severity: warning
package loopx.lint.rules.goal_left_spec

import data.loopx.lint.lib

# METADATA
# description: A goal the store keeps todos, gates or ledger entries for is not in the spec.
violations contains lib.violation(rego.metadata.chain(), msg, $"goal {g.id}", lib.state_at) if {
	some g in lib.state("left_spec")
	kept := [part |
		some [n, word] in [[g.todos, "todo"], [g.gates, "gate"], [g.ledger, "quota ledger entry"]]
		n > 0
		part := plural(n, word)
	]
	count(kept) > 0
	msg := $"goal {json.marshal(g.id)} is not in the spec, but the store keeps its {concat(", ", kept)}{hint}"
}

plural(1, word) := $"1 {word}"

plural(n, "quota ledger entry") := $"{n} quota ledger entries" if n != 1

plural(n, word) := $"{n} {word}s" if {
	n != 1
	word != "quota ledger entry"
}

# hint says what to do: state is kept by goal id.
hint := ": if the goal was renamed, give it back its old id to keep them (state is kept by goal id); otherwise they stay unused"
