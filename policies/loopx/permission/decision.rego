# METADATA
# title: loopx.permission
# description: |
#   The permission query (design §6): may this agent use this tool, write these
#   paths, run this command? Every rule that objects adds a reason; deny beats
#   ask beats allow. loopx protects itself: loopx/** and .loopx/** are never
#   writable and `loopx gate answer` never runs as an agent. The engine
#   normalises input.permission in Go: paths relative to the project root,
#   slash-separated, with outside_project / symlink_outside / resolved; the
#   simple commands of the command line (commands) and the actions they map
#   to (actions). Path globs have doublestar semantics (glob_match); command
#   patterns are globs where * matches anything.
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

decision := object.union(o, {"reasons": array.concat(o.reasons, user_warn)}) if o := outcome

outcome := answer("deny", deny) if count(deny) > 0

else := answer("ask", ask) if count(ask) > 0

else := answer("allow", [lib.reason(
	"permitted", $"{object.get(req, "tool", "")} permitted: no scope, gate or protection rule objects",
	"data.loopx.permission.decision", $"goals.{goal_id}.scope",
)])

answer(verdict, reasons) := {
	"verdict": verdict, "allow": verdict == "allow", "todo": null,
	"next_check_at": null, "charge": false, "reasons": reasons,
}

# Reasons in the order people should read them.
deny := [r | some rs in [health, bad_request, goal_agent, self_answer, protected, outside, scope_denied, outside_scope, command_denied, gate_open, goal_gate, user_deny]; some r in rs]

ask := [r | some rs in [command_unparsed, command_ask, command_not_allowed]; some r in rs]

# Normalised views of input and spec: defined whatever the input's shape.
default goal_id := ""

goal_id := input.goal if is_string(input.goal)

default req := {}

req := input.permission if is_object(input.permission)

default scope := {}

scope := data.loopx.spec.goals[goal_id].scope if is_object(data.loopx.spec.goals[goal_id].scope)

default cmd_spec := {}

cmd_spec := scope.commands if is_object(scope.commands)

strs(xs) := [x | some x in xs; is_string(x)] if is_array(xs)

else := []

globs(k) := strs(object.get(scope, k, []))

patterns(k) := strs(object.get(cmd_spec, k, []))

paths := [p | some p in object.get(req, "paths", []); is_object(p); is_string(p.path)]

default command := ""

command := trim_space(req.command) if is_string(req.command)

segments := strs(object.get(req, "commands", []))

# Everything a command pattern is matched against: the raw line and each simple command.
cmd_targets := {c | some c in array.concat([command], segments); c != ""}

actions := {a | some a in array.concat([object.get(req, "action", "")], strs(object.get(req, "actions", []))); is_string(a); a != ""}

# names are the project-relative names a path is checked under (itself and its symlink target).
names(p) := {n | some n in [p.path, object.get(p, "resolved", p.path)]; is_string(n); n != ""}

outside_path(p) if p.outside_project == true

outside_path(p) if p.symlink_outside == true

# METADATA
# description: |
#   Doublestar globs: ** crosses directories, * and ? do not, dotfiles match like
#   any file, "dir/**" matches below dir but not dir itself, "**/" and "/**/"
#   also match zero directories, a leading "./" is ignored, patterns are anchored
#   at the project root.
glob_match(g, name) := glob.match(doublestar(trim_prefix(g, "./")), ["/"], name)

doublestar(g) := concat("", ["{,**/}", substring(s, 3, -1)]) if {
	s := replace(g, "/**/", "{/,/**/}")
	startswith(s, "**/")
} else := replace(g, "/**/", "{/,/**/}")

# cmd_match matches a command pattern: * matches anything, / and . included
# (glob.match's empty delimiter list would mean ".").
cmd_match(g, c) := glob.match(g, ["\u0000"], c)

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
# description: The goal must be in the spec, the agent known and on the goal.
default goal_agent := []

goal_agent := [lib.reason("unknown_goal", $"goal {goal_id} is not declared in the spec", "data.loopx.permission.goal_agent", $"goals.{goal_id}")] if {
	not goal_known
} else := [lib.reason("unknown_agent", $"agent {input.agent} is neither declared in the spec nor registered", "data.loopx.permission.goal_agent", $"agents.{input.agent}")] if {
	not input.state.agent.known == true
} else := [lib.reason("agent_not_on_goal", $"agent {input.agent} is not in the agents of goal {goal_id}", "data.loopx.permission.goal_agent", $"goals.{goal_id}.agents")] if {
	not input.state.agent.on_goal == true
}

goal_known if is_object(data.loopx.spec.goals[goal_id])

# METADATA
# description: loopx's own spec, policies and state are never written by agents.
protected := array.concat(
	[lib.reason("protected_path", msg, "data.loopx.permission.protected", "") |
		some p in paths
		hits := [n | some n in names(p); own(n)]
		count(hits) > 0
		msg := $"{p.path}{via(p, hits)} is loopx's own (loopx/**, .loopx/**): agents may not write it"
	],
	[lib.reason("protected_path", msg, "data.loopx.permission.protected", "") |
		some p in paths
		p.contains_project == true
		msg := $"{p.path} contains the project and loopx's own loopx/ and .loopx/"
	],
)

own(n) if lower(n) in {".", "loopx", ".loopx"}

own(n) if startswith(lower(n), "loopx/")

own(n) if startswith(lower(n), ".loopx/")

via(p, hits) := $" (-> {hits[0]})" if hits[0] != p.path

else := ""

# METADATA
# description: Commands may not answer gates (design §8), the judgment stays human.
self_answer := [lib.reason("self_answer_forbidden", "`loopx gate answer` is for a gate's answerers, never for an agent's tool call", "data.loopx.permission.self_answer", "") |
	self_answering
]

self_answering if {
	"loopx.gate.answer" in actions
	not peer_answer
}

self_answering if {
	regex.match(`\bloopx\b[^;&|\n]*\bgate\s+answer\b`, command)
	not peer_answer
}

# A peer agent answering a gate that names it as an answerer
# ("agent:<id>") answers as itself, in one plain command; the engine still
# checks the gate's answerers and refuses the agent that raised it.
peer_answer if {
	count(object.get(req, "commands", [])) == 1
	is_string(input.agent)
	input.agent != ""
	some flag in [$"--as agent:{input.agent}", $"--as=agent:{input.agent}"]
	some suffix in [" ", ""]
	endswith_or_space(command, $"{flag}{suffix}")
	not regex.match(`\b(script|unbuffer|expect|socat|setsid)\b`, command)
}

endswith_or_space(c, f) if endswith(c, f)

endswith_or_space(c, f) if {
	endswith(f, " ")
	contains(c, f)
}

# METADATA
# description: Tool paths outside the project (.. traversal, absolute, symlinks out) deny.
outside := [r |
	some p in paths
	not p.via_command == true
	r := outside_reason(p)
]

outside_reason(p) := lib.reason("outside_project", $"{p.path} is outside the project", "data.loopx.permission.outside", "") if p.outside_project == true

else := lib.reason("symlink_outside", $"{p.path} resolves through a symlink to {object.get(p, "resolved", "")}, outside the project", "data.loopx.permission.outside", "") if p.symlink_outside == true

# METADATA
# description: A path matching a goals.<g>.scope.deny glob denies.
scope_denied := [lib.reason("scope_denied", msg, "data.loopx.permission.scope_denied", $"goals.{goal_id}.scope.deny") |
	some p in paths
	not outside_path(p)
	hits := [g | some g in globs("deny"); some n in names(p); glob_match(g, n)]
	count(hits) > 0
	msg := $"{p.path} matches scope.deny pattern {hits[0]}"
]

# METADATA
# description: With goals.<g>.scope.write set, a tool path matching none of its globs denies.
outside_scope := [lib.reason("outside_scope", msg, "data.loopx.permission.outside_scope", $"goals.{goal_id}.scope.write") |
	count(globs("write")) > 0
	some p in paths
	not p.via_command == true
	not outside_path(p)
	not every_writable(p)
	msg := $"{p.path} is outside scope.write {concat(", ", globs("write"))}"
]

every_writable(p) if every n in names(p) {
	writable(n)
}

writable(n) if {
	some g in globs("write")
	glob_match(g, n)
}

# METADATA
# description: A command matching a goals.<g>.scope.commands.deny pattern denies.
command_denied := command_hits("deny", "command_denied")

# METADATA
# description: A command matching a goals.<g>.scope.commands.ask pattern asks.
command_ask := command_hits("ask", "command_ask")

command_hits(k, code) := [lib.reason(code, msg, $"data.loopx.permission.{code}", $"goals.{goal_id}.scope.commands.{k}") |
	some g in patterns(k)
	hits := [c | some c in cmd_targets; cmd_match(g, c)]
	count(hits) > 0
	msg := $"`{hits[0]}` matches scope.commands.{k} pattern {g}"
]

# METADATA
# description: With scope.commands.allow set, a simple command matching none of it asks.
command_not_allowed := [lib.reason("command_not_allowed", $"`{c}` matches no scope.commands.allow pattern", "data.loopx.permission.command_not_allowed", $"goals.{goal_id}.scope.commands.allow") |
	count(patterns("allow")) > 0
	some c in {s | some s in segments} | {command | count(segments) == 0; command != ""}
	not command_allowed(c)
]

command_allowed(c) if {
	some g in patterns("allow")
	cmd_match(g, c)
}

# METADATA
# description: A command line the engine could not parse asks a human.
command_unparsed := [lib.reason("command_unparsed", $"cannot parse `{command}` into simple commands", "data.loopx.permission.command_unparsed", "") |
	req.command_parsed == false
]

# METADATA
# description: An open gate guarding one of the request's actions (or a command pattern) denies until it is answered.
gate_open := [lib.reason("gate_open", msg, "data.loopx.permission.gate_open", $"gate {id}") |
	some g in input.state.gates
	is_object(g)
	id := object.get(g, "id", "")
	hits := [x | some x in strs(object.get(g, "guards", [])); guarded(x)]
	count(hits) > 0
	msg := $"gate {id} is open: {object.get(g, "question", "")} ({hits[0]} waits for its answer)"
]

guarded(x) if x in actions

# METADATA
# description: An open gate that stops this agent's work on the goal (scope goal, or agent naming it) denies every tool call until it is answered, as should_run waits.
goal_gate := [lib.reason("gate_open", msg, "data.loopx.permission.goal_gate", $"gate {id}") |
	some g in input.state.gates
	is_object(g)
	stops_agent(object.get(object.get(g, "scope", {}), "kind", "goal"), g)
	id := object.get(g, "id", "")
	msg := $"gate {id} is open: {object.get(g, "question", "")} (work on the goal waits for its answer)"
]

stops_agent("goal", _)

stops_agent("agent", g) if input.agent in strs(object.get(g.scope, "agents", []))

guarded(x) if {
	some c in cmd_targets
	cmd_match(x, c)
}

# METADATA
# description: data.loopx.user.permission.deny entries (any deny wins).
user_deny := [user_reason(e, "user_policy", "deny") | some e in data.loopx.user.permission.deny]

# METADATA
# description: data.loopx.user.permission.warn entries, added to any verdict.
user_warn := [user_reason(e, "user_warning", "warn") | some e in data.loopx.user.permission.warn]

# user_reason accepts a string or an object {code, message, ref}.
user_reason(e, code, k) := lib.reason(object.get(e, "code", code), object.get(e, "message", $"{e}"), $"data.loopx.user.permission.{k}", object.get(e, "ref", "")) if is_object(e)

else := lib.reason(code, $"{e}", $"data.loopx.user.permission.{k}", "")
