# Todo eligibility, shared by should_run (which todo to select) and claim
# (may this agent hold this todo): every rule of who may work on a todo
# lives here once. t is a todo as input.state.todos lists it (engine.TodoFacts);
# agent is input.state.agent ({id, role, mode}).
package loopx.lib

# agent_work(t): task and monitor todos are agent work; gate and action todos are for humans.
agent_work(t) if t.kind in {"task", "monitor"}

# workable(t): an open or claimed todo (a claimed one becomes free when its lease ends);
# done, blocked and cancelled todos are settled.
workable(t) if t.status in {"open", "claimed"}

# held_by_other(t, agent_id): another agent holds a live lease on t.
held_by_other(t, agent_id) if {
	t.lease.live == true
	t.lease.holder != agent_id
}

# held_by(t, agent_id): agent_id holds a live lease on t.
held_by(t, agent_id) if {
	t.lease.live == true
	t.lease.holder == agent_id
}

# abandoned(t, agent_id): t carries another agent's expired lease (a killed or stuck
# agent); any agent on the goal may take it over, whatever its role or addressee.
abandoned(t, agent_id) if {
	t.lease.live == false
	t.lease.holder != agent_id
}

# deps_waiting(t): some todo t depends on is not done yet.
deps_waiting(t) if t.deps_open[0]

# scope_taken(t): t's write scope overlaps a todo held by a live lease of another agent.
scope_taken(t) if {
	is_string(t.scope_conflict)
	t.scope_conflict != ""
}

# addressed(t) is the set of agents a todo was handed to by name ("for:<agent>" labels).
addressed(t) := {substring(l, 4, -1) | some l in t.labels; is_string(l); startswith(l, "for:")}

# for_other(t, agent_id): t was handed to other agents by name (and is not abandoned).
for_other(t, agent_id) if {
	a := addressed(t)
	count(a) > 0
	not agent_id in a
	not abandoned(t, agent_id)
}

is_review(t) if "review" in t.labels

# role(agent) is the agent's role, "executor" when unknown.
role(agent) := agent.role if is_string(agent.role)

else := "executor"

# role_fits(t, agent): a todo handed to this agent, or abandoned, fits whatever its
# role; otherwise review todos go to reviewers, and reviewers take only review todos.
role_fits(t, agent) if agent.id in addressed(t)

role_fits(t, agent) if abandoned(t, agent.id)

role_fits(t, agent) if {
	is_review(t)
	role(agent) == "reviewer"
}

role_fits(t, agent) if {
	not is_review(t)
	role(agent) != "reviewer"
}

# monitor_only(agent): the agent takes monitors only.
monitor_only(agent) if agent.mode == "monitor_only"

# mode_fits(t, agent): a monitor_only agent takes monitor todos only.
mode_fits(t, agent) if not monitor_only(agent)

mode_fits(t, agent) if t.kind == "monitor"
