# METADATA
# title: loopx.run
# description: |
#   The should_run query: may this agent start a round on this goal now, and on which todo? The entry rule is decision; the first step of
#   outcome that has reasons decides, user warnings are appended to any verdict.
package loopx.run

import data.loopx.lib

# METADATA
# description: The should_run answer; always defined (undefined inputs deny).
# entrypoint: true
default decision := {
	"verdict": "deny", "allow": false, "todo": null, "next_check_at": null, "charge": false,
	"reasons": [{
		"code": "policy_undefined", "message": "should_run produced no decision",
		"rule": "data.loopx.run.decision", "ref": "",
	}],
}

decision := object.union(outcome, {"reasons": array.concat(outcome.reasons, user_warn)})

# METADATA
# description: |
#   The verdict of the first step that matches, in this order: health,
#   unknown goal, goal status, agent, open gates, stall, quota,
#   min_interval, no claimable todo, no state change, a user policy's
#   deny; else run.
outcome := stop("deny", health, null) if count(health) > 0

else := stop("deny", unknown_goal, null) if count(unknown_goal) > 0

else := stop("skip", goal_status, null) if count(goal_status) > 0

else := stop("deny", agent, null) if count(agent) > 0

else := stop("wait_human", gates, gates_next) if count(gates) > 0

else := stop("wait_human", stall, null) if count(stall) > 0

else := stop("skip", quota, lib.nonempty(object.get(quota_state, "resets_at", ""))) if count(quota) > 0

else := stop("skip", min_interval, lib.nonempty(object.get(quota_state, "next_round_at", ""))) if count(min_interval) > 0

else := stop("skip", no_todo, no_todo_next) if count(no_todo) > 0

else := stop("skip", no_state_change, null) if count(no_state_change) > 0

else := stop("deny", user_deny, null) if count(user_deny) > 0

else := {
	"verdict": "run", "allow": true, "charge": true, "next_check_at": null,
	"todo": {k: object.get(selected, k, "") | some k in ["id", "title", "kind"]},
	"reasons": array.concat([selected_reason], gates_elsewhere),
}

stop(verdict, reasons, next) := {
	"verdict": verdict, "allow": false, "charge": false, "todo": null,
	"reasons": reasons, "next_check_at": next,
}

# Normalised views of input and spec: defined whatever the input's shape.
default goal_id := ""

goal_id := input.goal

default agent_id := ""

agent_id := input.agent

default goal_spec := {}

goal_spec := data.loopx.spec.goals[input.goal] if is_object(data.loopx.spec.goals[input.goal])

default quota_spec := {}

quota_spec := goal_spec.quota if is_object(goal_spec.quota)

default quota_state := {}

quota_state := input.state.quota if is_object(input.state.quota)
