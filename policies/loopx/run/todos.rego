package loopx.run

import data.loopx.lib

default todos := []

todos := input.state.todos if is_array(input.state.todos)

# unclaimable[why]: indexes in todos of the todos this agent cannot claim for
# that reason; why_order is the precedence and the order in messages.
unclaimable[why] := ids if some why, ids in unfit

# The value of one key of unclaimable is a set, not a rule of its own.
# regal ignore:prefer-set-or-object-rule
unclaimable["not_due"] := lib.not_due(todos)

# regal ignore:prefer-set-or-object-rule
unclaimable["gated"] := lib.gated(todos, open_gates)

# A todo a user claim policy denies to this agent (its round start's claim
# would be refused) is not selected: another claimable one is. Asked only
# of the todos no other rule excludes (each is one evaluation of the
# user's claim policies, on the input the round start's claim would see).
# regal ignore:prefer-set-or-object-rule
unclaimable["user_claim"] := {i |
	excluded := union({ids | some why, ids in unfit}) | (lib.not_due(todos) | lib.gated(todos, open_gates))
	some i, t in todos
	not i in excluded
	count(user_claim_deny(t)) > 0
}

# user_claim_deny(t) is what data.loopx.user.claim.deny says of this agent's
# round start claiming t (lib.user_claim_deny).
user_claim_deny(t) := lib.user_claim_deny(t)

# unfit is lib.unfit over todos for the asking agent (every eligibility rule but gates and due monitors).
unfit := lib.unfit(todos, asker)

why_order := [
	["held", "held by other agents"], ["scope", "overlapping a scope held by another agent"],
	["deps", "waiting on dependencies"], ["not_due", "monitors not due"],
	["gated", "behind a todo gate"], ["for_other", "handed to other agents"],
	["role", role_label], ["mode", "not monitors (this agent is monitor_only)"],
	["blocked", "blocked"], ["human", "for humans (gate or action)"],
	["user_claim", "denied by a claim policy"],
]

# asker is the asking agent as lib's eligibility rules take it.
default asker := {"id": "", "role": "executor", "mode": "active"}

asker := object.union(input.state.agent, {"id": agent_id}) if is_object(input.state.agent)

default role_label := "review todos (for reviewers)"

role_label := "not review todos (this agent is a reviewer)" if lib.role(asker) == "reviewer"

# Claimable todos with their selection key: own live claims, then
# lib.order_key (due monitors, then priority (0 first), age), then input
# order (the engine lists todos oldest first, ties in insertion order; it
# may list only a window of them: engine/readmodel, lib.claim_order).
candidates := [[rank, k[1], k[2], i] |
	excluded := union({ids | some ids in unclaimable})
	some i, t in todos
	not i in excluded
	k := lib.order_key(t)
	rank := object.get(own_claims, i, k[0])
]

own_claims[i] := 0 if some i in lib.holding(todos, agent_id)

# METADATA
# description: Step 8 on run, the todo this agent should work on.
selected := todos[k[3]] if k := min(candidates)

selected_reason := lib.reason("todo_selected", $"{selected.id} {selected.title} (P{object.get(selected, "priority", 2)}, {selected.kind})", "data.loopx.run.selected", $"todo {selected.id}")

# METADATA
# description: Step 8, no todo this agent can claim; the message counts why.
no_todo := [lib.reason("no_todo", no_todo_message, "data.loopx.run.no_todo", "") | count(candidates) == 0]

no_todo_message := "no open todos" if count(todos) == 0

else := $"{lib.counted(count(todos), "todo")}: {concat(", ", [$"{count(why[w])} {label}" | some [w, label] in why_order; count(why[w]) > 0])}"

# why[w] is unclaimable[w] less the todos an earlier reason already counts.
why[w] := unclaimable[w] - union({unclaimable[v] | some j, [v, _] in why_order; j < k}) if some k, [w, _] in why_order

# The earliest instant a lease of another agent ends or a monitor is due.
no_todo_next := lib.earliest(array.concat(
	[todos[i].lease.expires_at | some i in why.held],
	[todos[i].next_due_at | some i in why.not_due],
))

# METADATA
# description: Step 9, the same todo again with nothing changed since a no_change round.
no_state_change := [lib.reason("no_state_change", $"nothing changed since your last round on {selected.id} ended no_change; a new todo, evidence, a gate answer, a spec or policy edit, or a due monitor lets it run again", "data.loopx.run.no_state_change", $"todo {selected.id}") |
	input.state.progress.last_outcome == "no_change"
	input.state.progress.changed_since_last == false
	selected.id == input.state.progress.last_todo
]
