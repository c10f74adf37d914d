# METADATA
# title: vague-gate-question
# description: |
#   A gate's question must be a concrete question (the spec schema's
#   #Question: a "?" and at least 4 words), so that its answerer knows what
#   they decide. Checks the spec's gates and the open gates in the store
#   (raised at runtime); a gate without a question at all is reported too.
# related_resources:
#   - description: the rule's documentation
#     ref: docs/policies.md#vague-gate-question
# custom:
#   severity: error
package loopx.lint.rules.vague_gate_question

import data.loopx.lint.lib

# METADATA
# description: Spec gates whose question is missing or not concrete.
violations contains lib.violation(rego.metadata.chain(), msg, $"goals.{gid}.gates.{name}.question", lib.spec_at(path)) if {
	some gid, goal in lib.goals
	some name, gate in lib.obj(object.get(lib.obj(goal), "gates", {}))
	not concrete(object.get(lib.obj(gate), "question", null))
	path := ["goals", gid, "gates", name, "question"]
	msg := message($"gate {name} of goal {gid}", lib.obj(gate))
}

# METADATA
# description: Open gates in the store whose question is missing or not concrete.
violations contains lib.violation(rego.metadata.chain(), msg, $"gate {id}", lib.state_at) if {
	some g in lib.state("gates")
	g.status == "open"
	not concrete(object.get(g, "question", null))
	id := object.get(g, "id", "")
	msg := message($"open gate {id} of goal {object.get(g, "goal", "")}", g)
}

# concrete(q): the spec schema's #Question accepts q. The rule lives there
# once; the engine evaluates it for every question and passes the answers
# as input.questions.
concrete(q) if {
	is_string(q)
	input.questions[q] == true
}

message(what, g) := $"{what} has no question: ask what the answerer decides, e.g. \"Merge the v2 branch into main?\"" if {
	not is_string(object.get(g, "question", null))
} else := $"{what} asks {json.marshal(g.question)}, which is not a concrete question: use a \"?\" and at least 4 words, e.g. \"Merge the v2 branch into main?\""
