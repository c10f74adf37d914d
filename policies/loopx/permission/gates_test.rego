package loopx.permission_test

gate := {
	"id": "ship-v2/merge", "question": "Merge the v2 branch into main?", "options": ["approve", "reject"],
	"scope": {"kind": "action"}, "guards": ["git.merge", "git.push", "npm publish*"],
}

test_open_gate_guarding_the_action_denies if {
	inp := object.union(req({"tool": "Bash", "action": "git.push", "actions": ["shell.exec", "git.push"], "command": "git push", "commands": ["git push"]}), {"state": {"gates": [gate]}})
	d := decide(inp)
	d.verdict == "deny"
	codes(d) == ["gate_open"] # a deny shows the deny reasons only
	d.reasons[0] == {
		"code": "gate_open", "message": "gate ship-v2/merge is open: Merge the v2 branch into main? (git.push waits for its answer)",
		"rule": "data.loopx.permission.gate_open", "ref": "gate ship-v2/merge",
	}
}

test_gate_guard_may_be_a_command_pattern if {
	inp := object.union(req({"command": "npm publish --tag next", "commands": ["npm publish --tag next"]}), {"state": {"gates": [gate]}})
	codes(decide(inp)) == ["gate_open"]
}

test_gate_guarding_other_actions_does_not_deny if {
	inp := object.union(req({"paths": [path("api/x.go")]}), {"state": {"gates": [gate, "junk"]}})
	decide(inp).verdict == "defer"
}

test_goal_wide_gate_denies_every_tool_call if {
	g := {"id": "g-1", "question": "Is the migration safe to run now?", "scope": {"kind": "goal", "agents": [], "todos": []}, "guards": []}
	inp := object.union(req({"paths": [path("api/v2/handlers.go")]}), {"state": {"gates": [g]}})
	d := decide(inp)
	codes(d) == ["gate_open"]
	d.verdict == "deny"
}

test_agent_gate_denies_only_that_agent if {
	g := {"id": "g-2", "question": "May claude keep editing today?", "scope": {"kind": "agent", "agents": ["someone-else"], "todos": []}, "guards": []}
	inp := object.union(req({"paths": [path("api/v2/handlers.go")]}), {"state": {"gates": [g]}})
	d := decide(inp)
	d.verdict == "defer"
}
