package loopx.run

import data.loopx.lib

# METADATA
# description: Step 1, fail closed when the store, spec or policy is unusable.
health := [lib.reason($"{k}_error", $"{k} unusable: {msg}", "data.loopx.run.health", "") |
	some k in ["store", "spec", "policy"]
	msg := input.health[k]
	not msg in {"", null}
]

# METADATA
# description: Step 1, the goal must be declared in the spec.
unknown_goal := [r |
	not goal_known
	r := lib.reason("unknown_goal", $"goal {goal_id} is not declared in the spec", "data.loopx.run.unknown_goal", $"goals.{goal_id}")
]

goal_known if {
	is_object(data.loopx.spec.goals[input.goal])
	input.state.goal.in_spec == true
}

# METADATA
# description: Step 2, a paused, done or archived goal, or quota.compute 0, skips.
goal_status := array.concat(
	[lib.reason($"goal_{s}", msg, "data.loopx.run.goal_status", $"goal {goal_id}") |
		s := input.state.goal.status
		s in {"paused", "done", "archived"}
		msg := concat(": ", [m | some m in [$"goal {goal_id} is {s}", object.get(input.state.goal, "reason", "")]; is_string(m); m != ""])
	],
	[lib.reason("compute_zero", $"goal {goal_id} has quota.compute 0: rounds are paused by the spec", "data.loopx.run.goal_status", $"goals.{goal_id}.quota.compute") |
		quota_spec.compute == 0
	],
)

# METADATA
# scope: document
# description: Step 3, the agent must be known and on the goal.
default agent := []

agent := [lib.reason("unknown_agent", lib.unknown_agent_message(agent_id), "data.loopx.run.agent", $"agents.{agent_id}")] if {
	not lib.agent_known
} else := [lib.reason("agent_not_on_goal", $"agent {agent_id} is not in the agents of goal {goal_id}", "data.loopx.run.agent", $"goals.{goal_id}.agents")] if {
	not lib.agent_on_goal
}
