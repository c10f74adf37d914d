package loopx.request_test

import data.loopx.request

# The normalised views stay defined, with their defaults, whatever the
# input's shape: no rule built on them is undefined for an odd request.
test_views_of_odd_requests_keep_their_defaults if {
	request.answer == {} with input as {"answer": 3}
	request.chan == {} with input as {"answer": {"channel": []}}
	every inp in [{}, null, "x", {"answer": 3}, {"answer": {"gate": "g-1", "actor": 7, "channel": []}}] {
		request.gate_id == "" with input as inp
		request.actor == "" with input as inp
		request.kind == "" with input as inp
		not request.human with input as inp
		not request.agent_actor with input as inp
		not request.has_acting with input as inp
	}
}

test_views_of_a_request if {
	inp := {"answer": {"gate": {"id": "g-1"}, "actor": "agent:codex", "channel": {"kind": "agent"}, "acting": {"mode": "act"}}}
	request.gate_id == "g-1" with input as inp
	request.ref == "gate g-1" with input as inp
	request.agent_actor with input as inp
	not request.human with input as inp
	request.kind == "agent" with input as inp
	request.has_acting with input as inp
	request.strs(["a", 1, "b", null]) == ["a", "b"]
}
