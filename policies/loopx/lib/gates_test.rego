package loopx.lib_test

import data.loopx.lib

g(kind, patch) := object.union({"id": "g-1", "scope": {"kind": kind, "agents": [], "todos": []}, "guards": []}, patch)

test_goal_gate_blocks_every_agent if {
	lib.gate_blocks_agent(g("goal", {}), "codex")
	lib.gate_blocks_work(g("goal", {}), "codex", "t-1")
	lib.gate_kind({"id": "g-1"}) == "goal"
	lib.gate_blocks_agent({"id": "g-1"}, "codex")
}

test_unknown_scope_kind_blocks_fail_closed if {
	every kind in ["", "team", "Goal", "agents"] {
		lib.gate_blocks_agent(g(kind, {}), "codex")
		lib.gate_blocks_work(g(kind, {}), "codex", "t-1")
	}
}

test_agent_gate_blocks_only_its_agents if {
	a := g("agent", {"scope": {"agents": ["codex"]}})
	lib.gate_blocks_agent(a, "codex")
	not lib.gate_blocks_agent(a, "claude")
	not lib.gate_blocks_work(a, "claude", "t-1")
}

test_todo_gate_blocks_only_its_todos if {
	x := g("todo", {"scope": {"todos": ["t-1"]}})
	not lib.gate_blocks_agent(x, "codex")
	lib.gate_blocks_todo(x, "t-1")
	lib.gate_blocks_work(x, "codex", "t-1")
	not lib.gate_blocks_work(x, "codex", "t-2")
	not lib.gate_blocks_work(x, "codex", "")
}

test_action_gate_blocks_only_its_actions if {
	x := g("action", {"guards": ["git.push"]})
	not lib.gate_blocks_work(x, "codex", "t-1")
	lib.gate_guards(x, "git.push")
	not lib.gate_guards(x, "git.merge")
}

test_gated_names_the_todos_a_todo_gate_holds_back if {
	todos := [{"id": "t-1"}, {"id": "t-2"}, {"id": "t-3"}]
	lib.gated(todos, [g("todo", {"scope": {"kind": "todo", "todos": ["t-2", "t-9"]}}), g("goal", {})]) == {1}
	lib.gated(todos, []) == set()
}
