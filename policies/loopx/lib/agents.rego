# Goal eligibility, shared by should_run, claim and permission: which
# agents may work on a goal lives here once.
package loopx.lib

# METADATA
# description: |
#   The asking agent (input.agent) may work on input.goal (should_run's
#   third step): it is known (declared in the spec or registered:
#   input.state.agent.known), and the goal's agents list
#   (data.loopx.spec.goals.<g>.agents) names it or is empty, or a human
#   registered it for the goal (`loopx agent register ID --goal G`:
#   input.state.agent.goals).
# entrypoint: true
default agent_on_goal := false

agent_on_goal if {
	input.state.agent.known == true
	count(goal_agents) == 0
}

agent_on_goal if {
	input.state.agent.known == true
	input.agent in goal_agents
}

agent_on_goal if {
	input.state.agent.known == true
	some g in input.state.agent.goals
	g == input.goal
}

# goal_agents is the goal's agents list in the spec ([] when it has none,
# or when the spec declares no such goal: unknown_goal decides that).
default goal_agents := []

goal_agents := data.loopx.spec.goals[input.goal].agents if is_array(data.loopx.spec.goals[input.goal].agents)

# METADATA
# description: |
#   The asking agent is known: declared in the spec or registered by a
#   human (input.state.agent.known). Every decision that names an
#   agent (claim, permission, run's preflight) refuses an unknown one
#   with unknown_agent and unknown_agent_message, this rule and no other.
# entrypoint: true
default agent_known := false

agent_known if input.state.agent.known == true

# unknown_agent_message is the one wording of the unknown_agent reason
# for agent id: what it is and what a human does about it.
unknown_agent_message(id) := $"unknown agent {id}: declare it in the spec or run loopx agent register"
