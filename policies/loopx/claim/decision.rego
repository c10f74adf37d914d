# METADATA
# title: loopx.claim
# description: |
#   The claim query: may this agent hold this todo, or record progress on
#   it? The engine asks it inside the transaction of every
#   mutation it guards, over the snapshot of that transaction:
#     op "claim"        loopx todo claim
#     op "round_start"  the claim of a round start's selected todo
#     op "transfer"     a lease handed from input.claim.from to input.agent
#     op "renew"        the holder extending its lease (it must still be a
#                       known agent on the goal: one removed from the spec
#                       cannot keep a todo by renewing)
#     op "finish"       a charged or done round finish (the agent must
#                       still be known: one removed from the spec cannot
#                       record progress; a monitor is never done; then gates)
#     op "done"         marking a todo done (an agent never ends a monitor;
#                       gates, and another agent's lease)
#     op "settle"       an agent blocking, cancelling or reopening a todo
#                       (it never ends a monitor; another agent's lease)
#     op "evidence"     evidence for a guarded action (action gates only)
#   The verdict is allow or deny; the first reason of a deny is the refusal
#   the caller sees. Version, epoch, TTL and idempotency are the engine's
#   mechanics, not rules.
package loopx.claim

import data.loopx.lib

# METADATA
# description: The claim answer; always defined (undefined inputs deny).
# entrypoint: true
default decision := {
	"verdict": "deny", "allow": false,
	"reasons": [{
		"code": "policy_undefined", "message": "claim produced no decision",
		"rule": "data.loopx.claim.decision", "ref": "",
	}],
}

decision := {"verdict": "allow", "allow": true, "reasons": user_warn} if count(deny) == 0

else := {"verdict": "deny", "allow": false, "reasons": array.concat(deny, user_warn)}

holding_ops := {"claim", "round_start", "transfer"}

default op := ""

op := input.claim.op if is_string(input.claim.op)

# deny lists every reason against the request, most important first.
deny := [r | some rs in [health, bad_request, status, human_work, agent, monitor_only, for_other, role, held, deps, gates, scope, user_deny]; some r in rs] if op in holding_ops

else := [r | some rs in [health, agent]; some r in rs] if op == "renew"

else := [r | some rs in [health, known, monitor_recurs, gates]; some r in rs] if op == "finish"

else := [r | some rs in [health, monitor_recurs, leased_by_other, gates]; some r in rs] if op == "done"

else := [r | some rs in [health, monitor_recurs, leased_by_other]; some r in rs] if op == "settle"

else := [r | some rs in [health, action_gates]; some r in rs] if op == "evidence"

else := bad_request

# Normalised views of the request: defined whatever the input's shape.
default agent_id := ""

agent_id := input.agent if is_string(input.agent)

default goal_id := ""

goal_id := input.goal if is_string(input.goal)

default todo := {}

todo := input.claim.todo if is_object(input.claim.todo)

default todo_id := ""

todo_id := todo.id if is_string(todo.id)

default asker := {"id": "", "role": "executor", "mode": "active"}

asker := object.union(input.state.agent, {"id": agent_id}) if is_object(input.state.agent)

open_gates := [g | some g in input.state.gates; is_object(g)]

# METADATA
# description: Fail closed when the store, spec or policy is unusable.
health := [lib.reason($"{k}_error", $"{k} unusable: {msg}", "data.loopx.claim.health", "") |
	some k in ["store", "spec", "policy"]
	msg := input.health[k]
	not msg in {"", null}
]

# METADATA
# description: A request loopx cannot read is refused.
bad_request := [lib.reason("bad_request", $"claim request op {op} is not one of claim, round_start, transfer, renew, finish, done, settle, evidence", "data.loopx.claim.bad_request", "") |
	not op in {"claim", "round_start", "transfer", "renew", "finish", "done", "settle", "evidence"}
] if not op in holding_ops

else := [lib.reason("bad_request", "a claim names a todo: input.claim.todo.id is missing", "data.loopx.claim.bad_request", "") |
	todo_id == ""
]

# METADATA
# description: Done, blocked and cancelled todos are settled; nobody claims them.
status := [lib.reason_data($"todo_{s}", $"todo {todo_id} is {s}{note}; it cannot be claimed", "data.loopx.claim.status", $"todo {todo_id}", {"todo": todo_id, "status": s}) |
	todo_id != ""
	not lib.workable(todo)
	s := object.get(todo, "status", "unknown")
	note := object.get({true: $": {todo.note}"}, object.get(todo, "note", "") != "", "")
]

# METADATA
# description: Gate and action todos are for humans; agents claim task and monitor todos.
human_work := [lib.reason_data("not_agent_work", $"todo {todo_id} is a {k} todo, for humans; agents claim task and monitor todos", "data.loopx.claim.human_work", $"todo {todo_id}", {"todo": todo_id, "kind": k}) |
	todo_id != ""
	not lib.agent_work(todo)
	k := object.get(todo, "kind", "unknown")
]

agent_data := {"todo": todo_id, "agent": agent_id, "role": lib.role(asker), "mode": object.get(asker, "mode", "active")}

# METADATA
# scope: document
# description: |
#   The agent must be known and on the todo's goal, and the goal in the
#   spec (input.state.goal.in_spec): a goal removed from the spec has no
#   agents list left, and an empty one would let every agent on it.
default agent := []

agent := [lib.reason_data("unknown_agent", lib.unknown_agent_message(agent_id), "data.loopx.claim.agent", $"agents.{agent_id}", agent_data)] if {
	not lib.agent_known
} else := [lib.reason_data("unknown_goal", $"goal {goal_id} is not declared in the spec", "data.loopx.claim.agent", $"goals.{goal_id}", agent_data)] if {
	not input.state.goal.in_spec == true
} else := [lib.reason_data("agent_not_on_goal", $"agent {agent_id} is not in the agents of goal {goal_id}", "data.loopx.claim.agent", $"goals.{goal_id}.agents", agent_data)] if {
	not lib.agent_on_goal
}

# METADATA
# scope: document
# description: |
#   A round's finish records progress only for a known agent on the goal:
#   one the spec stopped declaring (and no human registered), or took off
#   the goal's agents, cannot finish its round as done or charged.
default known := []

known := [lib.reason_data("unknown_agent", lib.unknown_agent_message(agent_id), "data.loopx.claim.known", $"agents.{agent_id}", agent_data)] if {
	not lib.agent_known
} else := [lib.reason_data("agent_not_on_goal", $"agent {agent_id} is not in the agents of goal {goal_id}", "data.loopx.claim.known", $"goals.{goal_id}.agents", agent_data)] if {
	not lib.agent_on_goal
}

# METADATA
# description: A monitor_only agent takes monitor todos only.
monitor_only := [lib.reason_data("monitor_only", $"agent {agent_id} is monitor_only and todo {todo_id} is a {todo.kind}", "data.loopx.claim.monitor_only", $"agents.{agent_id}.mode", agent_data) |
	not lib.mode_fits(todo, asker)
]

# METADATA
# description: A todo handed to agents by name ("for:<agent>") is theirs, unless its lease was abandoned.
for_other := [lib.reason_data("for_other_agent", msg, "data.loopx.claim.for_other", $"todo {todo_id}", facts) |
	lib.for_other(todo, agent_id)
	names := sort(lib.addressed(todo))
	joined := concat(", ", names)
	msg := $"todo {todo_id} was handed to {joined}"
	facts := object.union(agent_data, {"for": names})
]

# METADATA
# description: Review todos go to reviewers, and reviewers take only review todos.
role := [lib.reason_data("role_mismatch", role_message, "data.loopx.claim.role", $"agents.{agent_id}.role", agent_data) |
	count(for_other) == 0
	not lib.role_fits(todo, asker)
]

role_message := $"todo {todo_id} is a review todo and agent {agent_id} is not a reviewer (role {lib.role(asker)})" if lib.is_review(todo)

else := $"agent {agent_id} is a reviewer and todo {todo_id} is not labelled review"

# METADATA
# description: A live lease of another agent holds the todo (a transfer's own holder hands it on).
held := [lib.reason_data("already_claimed", msg, "data.loopx.claim.held", $"todo {todo_id}", facts) |
	lib.held_by_other(todo, agent_id)
	not transfer_from_holder
	l := todo.lease
	msg := $"todo {todo_id} is already claimed by {l.holder} until {l.expires_at} (lease version {l.version}, epoch {l.epoch})"
	facts := {"todo": todo_id, "holder": l.holder, "expires_at": l.expires_at, "version": l.version, "epoch": l.epoch}
]

# METADATA
# description: |
#   An agent does not change a todo another agent holds a live lease on:
#   marking it done, blocking, cancelling or reopening it is the holder's
#   (or a human's) to do. A human (input.agent "") is not refused here.
leased_by_other := [lib.reason_data("leased_by_other", msg, "data.loopx.claim.leased_by_other", $"todo {todo_id}", facts) |
	agent_id != ""
	lib.held_by_other(todo, agent_id)
	l := todo.lease
	msg := $"todo {todo_id} is leased by {l.holder} until {l.expires_at} (lease version {l.version}): agent {agent_id} may not change it"
	facts := {"todo": todo_id, "agent": agent_id, "holder": l.holder, "expires_at": l.expires_at, "version": l.version}
]

# METADATA
# description: |
#   A monitor recurs: a round never completes it (it is due again at the
#   round's finish plus its cadence), and an agent never ends it with a
#   human's commands (done, cancel, block); a human ends it.
monitor_recurs := [lib.reason_data("monitor_recurs", msg, "data.loopx.claim.monitor_recurs", $"todo {todo_id}", {"todo": todo_id, "every_seconds": cadence}) |
	todo.kind == "monitor"
	ends_monitor
	cadence := object.get(todo, "every_seconds", 0)
	msg := sprintf("todo %s is a monitor: a round never completes it (it is due again %s after each round); a human ends it with `loopx todo done %s` or `loopx todo cancel %s`", [todo_id, lib.duration_text(cadence), todo_id, todo_id])
]

# ends_monitor: the request would end the todo — a round finished as done,
# an agent marking it done (a human's done asks this query too, under an
# open gate: input.claim.human), an agent blocking or cancelling it.
ends_monitor if {
	op == "finish"
	input.claim.done == true
}

ends_monitor if {
	op == "done"
	not input.claim.human == true
}

ends_monitor if {
	op == "settle"
	not input.claim.status == "open"
}

transfer_from_holder if {
	op == "transfer"
	todo.lease.holder == input.claim.from
}

# METADATA
# description: Every todo it depends on must be done.
deps := [lib.reason_data("depends_on_open", $"todo {todo_id} depends on {concat(", ", todo.deps_open)}, not done yet", "data.loopx.claim.deps", $"todo {todo_id}", {"todo": todo_id, "open": todo.deps_open}) |
	lib.deps_waiting(todo)
]

# METADATA
# description: An open gate that stops this agent's work on this todo (goal, agent or todo scope) refuses.
gates := [lib.reason("gate_violation", violation(g), "data.loopx.claim.gates", $"gate {id}") |
	some g in open_gates
	lib.gate_blocks_work(g, agent_id, todo_id)
	id := object.get(g, "id", "")
]

# METADATA
# description: Evidence for a guarded action waits for the gate that guards it.
action_gates := [lib.reason("gate_violation", violation(g), "data.loopx.claim.action_gates", $"gate {id}") |
	some g in open_gates
	lib.gate_guards(g, input.claim.action)
	id := object.get(g, "id", "")
]

# violation is the message of a mutation refused by open gate g.
violation(g) := $"{what} refused: gate {id} is open: {object.get(g, "question", "")} (answer it with: loopx gate answer {id} --option …)" if id := object.get(g, "id", "")

# what names the refused mutation in a gate_violation message.
what := $"claim of todo {todo_id}" if op in {"claim", "round_start"}

else := $"transfer of todo {todo_id} to {agent_id}" if op == "transfer"

else := $"finishing round {input.claim.round} as {input.claim.outcome}" if op == "finish"

else := $"marking todo {todo_id} done" if op == "done"

else := $"evidence for guarded action {input.claim.action}" if op == "evidence"

else := op

# METADATA
# description: The todo's write scope overlaps a scope held by a live lease of another agent.
scope := [lib.reason_data("scope_conflict", msg, "data.loopx.claim.scope", ref, facts) |
	c := todo.conflict
	is_object(c)
	ref := $"todo {c.todo}"
	msg := $"todo {todo_id} writes {c.scope}, which overlaps {c.other_scope} of todo {c.todo} held by {c.holder} until {c.expires_at}"
	facts := {"todo": c.todo, "holder": c.holder, "expires_at": c.expires_at, "scope": c.scope, "other_scope": c.other_scope}
]

# METADATA
# description: data.loopx.user.claim.deny entries (any deny wins).
user_deny := [lib.user_reason(e, "user_policy", "data.loopx.user.claim.deny") | some e in data.loopx.user.claim.deny]

# METADATA
# description: data.loopx.user.claim.warn entries, added to any verdict.
user_warn := [lib.user_reason(e, "user_warning", "data.loopx.user.claim.warn") | some e in data.loopx.user.claim.warn]
