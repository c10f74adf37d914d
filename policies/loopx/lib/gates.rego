# Whether an open gate stops work, shared by should_run, claim and the
# progress checks: a gate's scope is goal (everyone on the goal), agent (the
# agents it names), todo (the todos it names) or action (only its guarded
# actions, checked by permission). Any other scope kind blocks the whole
# goal: loopx does not let work pass a gate it cannot read (fail closed).
# g is a gate as input.state.gates lists it (engine.GateFacts).
package loopx.lib

# gate_kind(g) is g's scope kind; a gate without one is a goal gate.
gate_kind(g) := g.scope.kind if is_string(g.scope.kind)

else := "goal"

# gate_blocks_agent(g, agent_id): g stops all of agent_id's work on the goal: a goal
# gate, a gate of a scope kind loopx does not know, or an agent gate naming agent_id.
gate_blocks_agent(g, _) if not gate_kind(g) in {"agent", "todo", "action"}

gate_blocks_agent(g, agent_id) if {
	gate_kind(g) == "agent"
	agent_id in g.scope.agents
}

# gate_blocks_todo(g, todo_id): g is a todo gate naming todo_id.
gate_blocks_todo(g, todo_id) if {
	gate_kind(g) == "todo"
	todo_id in g.scope.todos
}

# gated(todos, gates) is the set of indexes in todos of the todos a todo gate
# among gates (input.state.gates' open gates) holds back.
gated(todos, gates) := {i | some i, t in todos; some g in gates; gate_blocks_todo(g, t.id)}

# gate_blocks_work(g, agent_id, todo_id): g stops agent_id's work on todo_id.
gate_blocks_work(g, agent_id, _) if gate_blocks_agent(g, agent_id)

gate_blocks_work(g, _, todo_id) if gate_blocks_todo(g, todo_id)

# gate_guards(g, action): g is an action gate (or any gate) guarding action.
gate_guards(g, action) if action in g.guards
