# Todo eligibility, shared by should_run (which todo to select) and claim
# (may this agent hold this todo): every rule of who may work on a todo
# lives here once. t is a todo as input.state.todos lists it (engine.TodoFacts);
# agent is input.state.agent ({id, role, mode}).
package loopx.lib

# unfit(todos, agent) sorts the todos agent cannot take, by reason: an
# object from reason to the set of indexes in todos it excludes. Every
# eligibility rule is here once, written over the whole list so that
# should_run decides 200 todos in one call (a call per todo and rule costs
# an evaluation each); the per-todo rules below, which claim asks about one
# todo, read it.
#   held       another agent holds a live lease on the todo
#   deps       some todo it depends on is not done yet
#   scope      its write scope overlaps a todo held by a live lease of another agent
#   for_other  it was handed to other agents by name ("for:<agent>" labels) and is not abandoned
#   role       review todos go to reviewers, and reviewers take only review todos
#              (a todo handed to this agent, or abandoned, fits whatever its role)
#   mode       a monitor_only agent takes monitor todos only
#   blocked    done, blocked and cancelled todos are settled (open and claimed are
#              workable: a claimed one becomes free when its lease ends)
#   human      gate and action todos are for humans; task and monitor todos are agent work
unfit(todos, agent) := object.union(settled(todos), {
	"held": {i | some i, t in todos; t.lease.live == true; t.lease.holder != agent.id},
	"scope": {i | some i, t in todos; is_string(t.scope_conflict); t.scope_conflict != ""},
	"for_other": {i | some i, t in todos; a := addressed(t); count(a) > 0; not agent.id in a; not abandoned(t, agent.id)},
	"role": {i | some i, t in todos; not role_fits(t, agent)},
	"mode": {i | monitor_only(agent); some i, t in todos; t.kind != "monitor"},
})

# settled(todos) is the part of unfit that reads each todo alone, neither
# the asking agent nor the clock (deps, blocked, human): a todo it names
# stays unclaimable for every agent until the state changes.
settled(todos) := {
	"deps": {i | some i, t in todos; t.deps_open[0]},
	"blocked": {i | some i, t in todos; not t.status in {"open", "claimed"}},
	"human": {i | some i, t in todos; not t.kind in {"task", "monitor"}},
}

# order_key(t) is the key should_run selects a claimable todo by, least
# first, unless the asking agent holds a live lease on it (those come
# first): monitors (1) before other todos (2), then priority (0 first),
# then age (created_at, older first); input order breaks ties.
order_key(t) := [object.get({"monitor": 1}, t.kind, 2), object.get(t, "priority", 2), object.get(t, "created_at", "")]

# claim_order(todos) lists the indexes in todos of the todos settled does
# not name, by order_key, ties by index: the order in which should_run
# would select them for an agent holding none. The engine computes it once
# per state revision (engine/readmodel) and gives should_run the todos of a
# prefix of it that covers every todo with a lease (whose rank depends on
# the asking agent), so that a decision walks a few todos, not all.
# METADATA
# entrypoint: true
claim_order(todos) := [i | some [_, i] in sort([[order_key(t), i] | some i, t in todos; not i in out])] if {
	s := settled(todos)
	out := (s.deps | s.blocked) | s.human
}

# not_due(todos) is the set of indexes in todos of the monitors not due yet.
not_due(todos) := {i | some i, t in todos; t.kind == "monitor"; not t.due == true}

# holding(todos, agent_id) is the set of indexes in todos of the todos
# agent_id holds a live lease on.
holding(todos, agent_id) := {i | some i, t in todos; t.lease.live == true; t.lease.holder == agent_id}

# agent_work(t): task and monitor todos are agent work; gate and action todos are for humans.
agent_work(t) if not 0 in unfit([t], {}).human

# workable(t): an open or claimed todo; done, blocked and cancelled todos are settled.
workable(t) if not 0 in unfit([t], {}).blocked

# held_by_other(t, agent_id): another agent holds a live lease on t.
held_by_other(t, agent_id) if 0 in unfit([t], {"id": agent_id}).held

# held_by(t, agent_id): agent_id holds a live lease on t.
held_by(t, agent_id) if 0 in holding([t], agent_id)

# abandoned(t, agent_id): t carries another agent's expired lease (a killed or stuck
# agent); any agent on the goal may take it over, whatever its role or addressee.
abandoned(t, agent_id) if {
	t.lease.live == false
	t.lease.holder != agent_id
}

# deps_waiting(t): some todo t depends on is not done yet.
deps_waiting(t) if 0 in unfit([t], {}).deps

# scope_taken(t): t's write scope overlaps a todo held by a live lease of another agent.
scope_taken(t) if 0 in unfit([t], {}).scope

# addressed(t) is the set of agents a todo was handed to by name ("for:<agent>" labels).
addressed(t) := {substring(l, 4, -1) | some l in t.labels; is_string(l); startswith(l, "for:")}

# for_other(t, agent_id): t was handed to other agents by name (and is not abandoned).
for_other(t, agent_id) if 0 in unfit([t], {"id": agent_id}).for_other

is_review(t) if "review" in t.labels

# role(agent) is the agent's role, "executor" when unknown.
role(agent) := agent.role if is_string(agent.role)

else := "executor"

# role_fits(t, agent): see unfit's role.
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
mode_fits(t, agent) if not 0 in unfit([t], agent).mode
