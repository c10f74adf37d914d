package loopx.run_test

test_goal_gate_waits_with_question if {
	d := decide(state({"gates": [gate("g-4f9a", "goal", {"question": "Merge the v2 branch into main?", "expires_at": "2026-12-02T10:00:00Z"})]}))
	d.verdict == "wait_human"
	d.reasons == [{
		"code": "gate_open", "message": "gate g-4f9a is open: Merge the v2 branch into main?",
		"rule": "data.loopx.run.gates", "ref": "gate g-4f9a",
	}]
	d.next_check_at == "2026-12-02T10:00:00Z"
}

test_gate_without_expiry_has_no_next_check if {
	decide(state({"gates": [gate("g-1", "goal", {})]})).next_check_at == null
}

test_earliest_gate_expiry_is_next_check if {
	d := decide(state({"gates": [
		gate("g-1", "goal", {"expires_at": "2026-12-03T00:00:00Z"}),
		gate("g-2", "goal", {"expires_at": "2026-12-02T00:00:00Z"}),
	]}))
	codes(d) == ["gate_open", "gate_open"]
	d.next_check_at == "2026-12-02T00:00:00Z"
}

test_agent_gate_blocks_only_its_agents if {
	g := gate("g-1", "agent", {"scope": {"agents": ["codex"]}})
	decide(state({"gates": [g]})).verdict == "wait_human"
	decide(object.union(state({"gates": [g]}), {"agent": "claude"})).verdict == "run"
}

test_stall_gate_waits if {
	d := decide(state({"gates": [gate("g-9", "goal", {"reason": "stall", "question": "3 rounds without progress: continue?"})]}))
	d.verdict == "wait_human"
	contains(d.reasons[0].message, "3 rounds without progress: continue?")
}

test_gate_without_scope_kind_blocks_goal if {
	decide(state({"gates": [{"id": "g-1", "question": "Go on?"}]})).verdict == "wait_human"
}

test_todo_gate_blocks_only_its_todo if {
	d := decide(state({
		"gates": [gate("g-7", "todo", {"scope": {"todos": ["t-1"]}})],
		"todos": [todo("t-1", 0, "2026-11-28T10:00:00Z"), todo("t-2", 3, "2026-11-28T11:00:00Z")],
	}))
	d.verdict == "run"
	d.todo.id == "t-2"
	codes(d) == ["todo_selected", "gate_open_elsewhere"]
	d.reasons[1] == {
		"code": "gate_open_elsewhere", "message": "gate g-7 is open for todo t-1: Approve g-7?; unrelated todos continue",
		"rule": "data.loopx.run.gates_elsewhere", "ref": "gate g-7",
	}
}

test_todo_gate_on_only_todo_leaves_nothing if {
	d := decide(state({"gates": [gate("g-7", "todo", {"scope": {"todos": ["t-1"]}})]}))
	d.verdict == "skip"
	d.reasons[0].message == "1 todo: 1 behind a todo gate"
}

test_action_gate_does_not_stop_work if {
	d := decide(state({"gates": [gate("g-3", "action", {"guards": ["git.merge", "git.push"]})]}))
	d.verdict == "run"
	d.reasons[1].message == "gate g-3 is open for action git.merge, git.push: Approve g-3?; unrelated todos continue"
}

test_stall_limit_waits if {
	d := decide(state({"progress": {"consecutive_no_progress": 3}}))
	d.verdict == "wait_human"
	d.reasons == [{
		"code": "stall_limit",
		"message": "3 rounds in a row without progress (stall.max_no_progress 3); a human must look before the next round",
		"rule": "data.loopx.run.stall", "ref": "goals.g1.stall.max_no_progress",
	}]
}

test_below_stall_limit_runs if {
	decide(state({"progress": {"consecutive_no_progress": 2}})).verdict == "run"
}
