package loopx.lib_test

import data.loopx.lib

on_goal(agent, known, registered, listed) := v if {
	v := lib.agent_on_goal with input as {"goal": "g1", "agent": agent, "state": {"agent": {"known": known, "goals": registered}}}
		with data.loopx.spec as {"goals": {"g1": {"agents": listed}}}
}

test_agent_on_goal if {
	every c in [
		# agent, known, registered for, goal's agents list, on goal
		["codex", true, [], [], true], # an empty list: every known agent
		["codex", true, [], ["codex"], true], # listed
		["codex", true, [], ["claude"], false], # not listed
		["bot", true, ["g1"], ["claude"], true], # registered for the goal by a human
		["bot", true, ["g2"], ["claude"], false], # registered for another goal
		["bot", false, ["g1"], ["bot"], false], # unknown agents are never on a goal
		["bot", false, [], [], false],
	] {
		on_goal(c[0], c[1], c[2], c[3]) == c[4]
	}
}

test_agent_on_goal_without_spec_goal if {
	lib.agent_on_goal with input as {"goal": "g9", "agent": "codex", "state": {"agent": {"known": true}}}
		with data.loopx.spec as {"goals": {}}
	not lib.agent_on_goal with input as {"goal": "g1", "agent": "codex", "state": {"agent": {"known": true, "goals": null}}}
		with data.loopx.spec as {"goals": {"g1": {"agents": ["claude"]}}}
}
