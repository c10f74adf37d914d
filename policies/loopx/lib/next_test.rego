package loopx.lib_test

import data.loopx.lib

test_next_todos_is_the_claim_order_less_held_not_due_and_gated_todos if {
	todos := [
		t({"id": "t-1", "priority": 1, "created_at": "a", "lease": {"holder": "a2", "live": true}}),
		t({"id": "t-2", "priority": 3, "created_at": "a"}),
		t({"id": "t-3", "priority": 0, "created_at": "a", "deps_open": ["t-2"]}),
		t({"id": "t-4", "kind": "action", "priority": 0, "created_at": "a"}),
		t({"id": "t-5", "priority": 4, "created_at": "a"}),
		t({"id": "t-6", "kind": "monitor", "due": true, "created_at": "b"}),
		t({"id": "t-7", "kind": "monitor", "due": false, "created_at": "a"}),
		t({"id": "t-8", "priority": 2, "created_at": "a", "lease": {"holder": "a2", "live": false}}),
		t({"id": "t-9", "kind": "gate", "status": "blocked"}),
	]
	gates := [{"id": "g-1", "scope": {"kind": "todo", "todos": ["t-5"]}}]
	lib.next_todos(todos, gates) == {"next": [5, 7, 1], "for_you": [3]}
}
