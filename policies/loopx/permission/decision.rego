# METADATA
# title: loopx.permission
# description: |
#   The permission query: may this agent use this tool, write these paths,
#   run this command? Every rule that objects adds a reason; deny beats
#   ask beats allow and defer. `allow` is a grant: only a goals.<g>.scope.grant
#   entry matching the whole call gives it (a host skips its own prompt on it).
#   A call no grant matches and no rule objects to is `defer`: loopx has no
#   objection and the host's own permission flow decides. scope.write and
#   scope.commands.allow are restrictions, never grants.
#   loopx protects itself, the hooks that govern agents and the files that
#   run the human's next command: the protected set is never writable, loopx's
#   human-only verbs never run as an agent, and a command line the engine
#   cannot read (opaque) is never allowed.
#   The engine normalises input.permission in Go: paths relative to the project
#   root, slash-separated, with outside_project / symlink_outside / resolved;
#   via_command for a file a shell command writes, mentioned for a path-like
#   word an opaque command names; the simple commands of the command line
#   (argvs, and joined as commands), the reasons it is opaque (opaque), and
#   the actions they map to (actions). Path globs have doublestar semantics
#   (lib.glob_match); command patterns are globs where * matches anything.
package loopx.permission

import data.loopx.lib

# METADATA
# description: The permission answer; always defined (undefined inputs deny).
# entrypoint: true
default decision := {
	"verdict": "deny", "allow": false, "todo": null, "next_check_at": null, "charge": false,
	"reasons": [{
		"code": "policy_undefined", "message": "permission produced no decision",
		"rule": "data.loopx.permission.decision", "ref": "",
	}],
}

decision := object.union(outcome, {"reasons": array.concat(outcome.reasons, user_warn)})

outcome := answer("deny", deny) if count(deny) > 0

else := answer("ask", ask) if count(ask) > 0

else := answer("allow", granted) if count(granted) > 0

else := answer("defer", [lib.reason(
	"no_grant", $"{call_name}: no rule objects and no scope.grant matches; the host's own permission flow decides",
	"data.loopx.permission.decision", $"goals.{goal_id}.scope.grant",
)])

# allow is true for a grant only: defer (no objection) is not a grant.
answer(verdict, reasons) := {
	"verdict": verdict, "allow": verdict == "allow", "todo": null,
	"next_check_at": null, "charge": false, "reasons": reasons,
}

# Reasons in the order people should read them.
deny := [r | some rs in [health, bad_request, goal_agent, human_only, protected, outside, scope_denied, outside_scope, command_denied, opaque_as("deny"), gate_open, goal_gate, user_deny]; some r in rs]

ask := [r | some rs in [opaque_as("ask"), command_ask, command_not_allowed]; some r in rs]

# METADATA
# description: Fail closed when the store, spec or policy is unusable.
health := [lib.reason($"{k}_error", $"{k} unusable: {msg}", "data.loopx.permission.health", "") |
	some k in ["store", "spec", "policy"]
	msg := input.health[k]
	not msg in {"", null}
]

# METADATA
# description: A request without input.permission or with a malformed path denies.
bad_request := [lib.reason("bad_request", msg, "data.loopx.permission.bad_request", "") |
	some msg in array.concat(
		[m | not has_request; m := "no permission request (input.permission)"],
		[$"malformed path entry {p}" | some p in object.get(req, "paths", []); not has_path(p)],
	)
]

# (`not is_object(x)` is false, not true, when x is undefined: use helper rules.)
has_request if is_object(input.permission)

has_path(p) if is_string(p.path)

# METADATA
# scope: document
# description: |
#   The goal must be in the spec, the agent known and on the goal. Not
#   judged while the store, spec or policy is unusable (health denies
#   then): an unreadable store knows no registration, and saying the agent
#   is unknown would send a human after the wrong fault.
default goal_agent := []

goal_agent := goal_agent_checks if count(health) == 0

default goal_agent_checks := []

goal_agent_checks := [lib.reason("unknown_goal", $"goal {goal_id} is not declared in the spec", "data.loopx.permission.goal_agent", $"goals.{goal_id}")] if {
	not goal_known
} else := [lib.reason("unknown_agent", lib.unknown_agent_message(input.agent), "data.loopx.permission.goal_agent", $"agents.{input.agent}")] if {
	not lib.agent_known
} else := [lib.reason("agent_not_on_goal", $"agent {input.agent} is not in the agents of goal {goal_id}", "data.loopx.permission.goal_agent", $"goals.{goal_id}.agents")] if {
	not lib.agent_on_goal
}

# goal_id is the request view of request.rego, not an output variable.
# regal ignore:use-some-for-output-vars
goal_known if is_object(data.loopx.spec.goals[goal_id])

# METADATA
# description: data.loopx.user.permission.deny entries (any deny wins).
user_deny := [user_reason(e, "user_policy", "deny") | some e in data.loopx.user.permission.deny]

# METADATA
# description: data.loopx.user.permission.warn entries, added to any verdict.
user_warn := [user_reason(e, "user_warning", "warn") | some e in data.loopx.user.permission.warn]

# user_reason accepts a string or an object {code, message, ref}.
user_reason(e, code, k) := lib.reason(object.get(e, "code", code), object.get(e, "message", $"{e}"), $"data.loopx.user.permission.{k}", object.get(e, "ref", "")) if is_object(e)

else := lib.reason(code, $"{e}", $"data.loopx.user.permission.{k}", "")
