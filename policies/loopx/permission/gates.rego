# Open gates: a gate guarding the call's action, or one stopping this
# agent's work on the goal, denies until it is answered.
package loopx.permission

import data.loopx.lib

# METADATA
# description: An open gate guarding one of the request's actions (or a command pattern) denies until it is answered.
gate_open := [lib.reason("gate_open", msg, "data.loopx.permission.gate_open", $"gate {id}") |
	some g in input.state.gates
	is_object(g)
	id := object.get(g, "id", "")
	hits := [x | some x in strs(object.get(g, "guards", [])); guarded(x)]
	count(hits) > 0
	msg := $"gate {id} is open: {object.get(g, "question", "")} ({hits[0]} waits for its answer)"
]

guarded(x) if x in actions

guarded(x) if {
	some c in cmd_targets
	cmd_match(x, c)
}

# METADATA
# description: An open gate that stops this agent's work on the goal (lib.gate_blocks_agent, shared with should_run and claim) denies every tool call until it is answered.
goal_gate := [lib.reason("gate_open", msg, "data.loopx.permission.goal_gate", $"gate {id}") |
	some g in input.state.gates
	is_object(g)
	lib.gate_blocks_agent(g, input.agent)
	id := object.get(g, "id", "")
	msg := $"gate {id} is open: {object.get(g, "question", "")} (work on the goal waits for its answer)"
]
