package loopx.gate_test

import data.loopx.gate

# The normalised views stay defined, with their defaults, whatever the
# input's shape: no rule built on them is undefined for an odd request.
test_views_of_odd_requests_keep_their_defaults if {
	gate.answer == {} with input as {"answer": 3}
	gate.chan == {} with input as {"answer": {"channel": []}}
	every inp in [{}, null, "x", {"answer": 3}, {"answer": {"gate": "g-1", "actor": 7, "channel": []}}] {
		gate.gate_id == "" with input as inp
		gate.actor == "" with input as inp
		gate.kind == "" with input as inp
		not gate.human with input as inp
		not gate.agent_actor with input as inp
	}
}

test_views_of_a_request if {
	inp := {"answer": {"gate": {"id": "g-1"}, "actor": "agent:codex", "channel": {"kind": "agent"}}}
	gate.gate_id == "g-1" with input as inp
	gate.ref == "gate g-1" with input as inp
	gate.agent_actor with input as inp
	not gate.human with input as inp
	gate.kind == "agent" with input as inp
	gate.strs(["a", 1, "b", null]) == ["a", "b"]
}
