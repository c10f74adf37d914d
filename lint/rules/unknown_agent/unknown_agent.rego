# METADATA
# title: unknown-agent
# description: |
#   Agents named by a gate's answerers ("agent:<id>") or by a gate's
#   agents must exist: declared in the spec's agents or registered in the
#   store. A typo there leaves a gate nobody may answer. (A goal's agents
#   list naming an undeclared agent is a spec error: loopx vet,
#   unknown_agent.)
# related_resources:
#   - description: the rule's documentation
#     ref: docs/policies.md#unknown-agent
# custom:
#   severity: error
package loopx.lint.rules.unknown_agent

import data.loopx.lint.lib

# known are the declared and the registered agent ids.
known contains id if some id, _ in lib.agents

known contains a.id if some a in lib.state("agents")

# METADATA
# description: A gate's answerers ("agent:<id>") or agents name an unknown agent.
violations contains lib.violation(rego.metadata.chain(), msg, $"goals.{gid}.gates.{name}.{field}", lib.spec_at(["goals", gid, "gates", name, field, format_int(i, 10)])) if {
	some gid, goal in lib.goals
	some name, gate in lib.obj(object.get(lib.obj(goal), "gates", {}))
	some field in ["answerers", "agents"]
	some i, entry in lib.arr(object.get(lib.obj(gate), field, []))
	is_string(entry)
	id := agent_id(field, entry)
	not id in known
	msg := $"gate {name} of goal {gid} names agent {json.marshal(id)} in {field}, which is neither declared in agents nor registered{hint}"
}

agent_id("answerers", e) := substring(e, 6, -1) if startswith(e, "agent:")

agent_id("agents", e) := e

default hint := " (no agent is declared)"

hint := $" (known: {concat(", ", sort(known))})" if count(known) > 0
