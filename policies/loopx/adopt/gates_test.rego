package loopx.adopt_test

with_gate(spec_gate) := patched({"/goals/g1/gates/stop": spec_gate})

test_gate_scope_directions if {
	goal_gate := {"question": "Stop?", "options": ["approve", "reject"], "guards": [], "answerers": ["human"], "agents": [], "todos": []}
	agent_gate := object.union(goal_gate, {"agents": ["a1"]})

	# narrowing a goal gate to one agent loosens; widening to the goal tightens
	decide(with_gate(goal_gate), with_gate(agent_gate)).verdict == "pending"
	decide(with_gate(agent_gate), with_gate(goal_gate)).verdict == "adopt"
	two_agents := object.union(goal_gate, {"agents": ["a1", "a2"]})
	decide(with_gate(agent_gate), with_gate(two_agents)).verdict == "adopt"
	decide(with_gate(two_agents), with_gate(agent_gate)).verdict == "pending"
}
