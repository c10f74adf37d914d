package loopx.run

import data.loopx.lib

open_gates := [g | some g in input.state.gates; is_object(g)]

# scope_kind is the gate's scope kind; a gate without one blocks the goal (fail closed).
scope_kind(g) := g.scope.kind if is_string(g.scope.kind)

else := "goal"

# blocks_agent: scope goal (or an unknown kind), or scope agent naming this agent.
blocks_agent(g) if not scope_kind(g) in {"agent", "todo", "action"}

blocks_agent(g) if {
	scope_kind(g) == "agent"
	some a in g.scope.agents
	a == agent_id
}

# METADATA
# description: Step 4, an open gate that blocks this agent waits for a human.
gates := [lib.reason("gate_open", msg, "data.loopx.run.gates", $"gate {id}") |
	some g in open_gates
	blocks_agent(g)
	id := object.get(g, "id", "")
	msg := $"gate {id} is open{stall_note(g)}: {object.get(g, "question", "")}"
]

gates_next := lib.earliest([g.expires_at | some g in open_gates; blocks_agent(g)])

stall_note(g) := " (raised after a stall)" if g.reason == "stall"

else := ""

# METADATA
# description: On run, each todo- or action-scoped open gate; other work goes on.
gates_elsewhere := [lib.reason("gate_open_elsewhere", msg, "data.loopx.run.gates_elsewhere", $"gate {id}") |
	some g in open_gates
	k := scope_kind(g)
	k in {"todo", "action"}
	id := object.get(g, "id", "")
	path := {"todo": ["scope", "todos"], "action": ["guards"]}[k]
	items := concat(", ", [x | some x in object.get(g, path, []); is_string(x)])
	msg := $"gate {id} is open for {k} {items}: {object.get(g, "question", "")}; unrelated todos continue"
]

# Todo ids held back by todo-scoped open gates.
gated_todos := {id | some g in open_gates; scope_kind(g) == "todo"; some id in g.scope.todos}

# METADATA
# description: Step 5, too many rounds in a row without progress wait for a human.
stall := [lib.reason("stall_limit", $"{n} rounds in a row without progress (stall.max_no_progress {limit}); a human must look before the next round", "data.loopx.run.stall", $"goals.{goal_id}.stall.max_no_progress") |
	n := input.state.progress.consecutive_no_progress
	limit := goal_spec.stall.max_no_progress
	is_number(limit)
	limit > 0
	n >= limit
]
