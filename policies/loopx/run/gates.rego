package loopx.run

import data.loopx.lib

open_gates := [g | some g in input.state.gates; is_object(g)]

# blocks_agent: the gate stops all of this agent's work (lib.gate_blocks_agent).
blocks_agent(g) if lib.gate_blocks_agent(g, agent_id)

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
	k := lib.gate_kind(g)
	k in {"todo", "action"}
	id := object.get(g, "id", "")
	path := {"todo": ["scope", "todos"], "action": ["guards"]}[k]
	items := concat(", ", [x | some x in object.get(g, path, []); is_string(x)])
	msg := $"gate {id} is open for {k} {items}: {object.get(g, "question", "")}; unrelated todos continue"
]

# METADATA
# description: Step 5, too many rounds in a row without progress wait for a human.
stall := [lib.reason("stall_limit", $"{n} rounds in a row without progress (stall.max_no_progress {limit}); a human must look before the next round", "data.loopx.run.stall", $"goals.{goal_id}.stall.max_no_progress") |
	n := input.state.progress.consecutive_no_progress
	limit := goal_spec.stall.max_no_progress
	is_number(limit)
	limit > 0
	n >= limit
]
