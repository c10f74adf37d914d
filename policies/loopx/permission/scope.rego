# The goal's scope: paths outside the project, scope.deny, scope.write,
# scope.commands (deny, ask, allow) and command lines the engine cannot read.
package loopx.permission

import data.loopx.lib

# METADATA
# description: |
#   Tool paths outside the project (.. traversal, absolute, symlinks out)
#   deny. A file a shell command writes (via_command) or names (mentioned)
#   may be outside: a shell may write /tmp and read /etc.
outside := [r |
	some p in paths
	not p.via_command == true
	not mentioned(p)
	r := outside_reason(p)
]

outside_reason(p) := lib.reason("outside_project", $"{p.path} is outside the project", "data.loopx.permission.outside", "") if p.outside_project == true

else := lib.reason("symlink_outside", $"{p.path} resolves through a symlink to {object.get(p, "resolved", "")}, outside the project", "data.loopx.permission.outside", "") if p.symlink_outside == true

# METADATA
# description: |
#   A path matching a goals.<g>.scope.deny glob denies, and so does a
#   directory that may contain such a path (covers: rm -rf secrets, mv
#   secrets /tmp, chmod -R 000 secrets under secrets/**).
scope_denied := [lib.reason("scope_denied", msg, "data.loopx.permission.scope_denied", $"goals.{goal_id}.scope.deny") |
	some p in paths
	not outside_path(p)
	hits := [g | some g in globs("deny"); some n in names(p); covers(g, n); not container_named(p, n)]
	count(hits) > 0
	msg := denied_message(p, hits[0])
]

denied_message(p, g) := $"`{command}` cannot be read and names {p.path}, which matches scope.deny pattern {g}" if mentioned(p)

else := $"{p.path} matches scope.deny pattern {g}" if some_name_matches(p, g)

else := $"{p.path} contains paths matching scope.deny pattern {g}"

some_name_matches(p, g) if {
	some n in names(p)
	lib.glob_match(g, n)
}

# METADATA
# description: |
#   With goals.<g>.scope.write set, a tool path matching none of its globs
#   denies (a restriction, never a grant). Files a shell command writes or
#   names are not held to it (see outside).
outside_scope := [lib.reason("outside_scope", msg, "data.loopx.permission.outside_scope", $"goals.{goal_id}.scope.write") |
	count(globs("write")) > 0
	some p in paths
	not p.via_command == true
	not mentioned(p)
	not outside_path(p)
	not every_writable(p)
	msg := $"{p.path} is outside scope.write {concat(", ", globs("write"))}"
]

every_writable(p) if every n in names(p) {
	writable(n)
}

writable(n) if {
	some g in globs("write")
	lib.glob_match(g, n)
}

# METADATA
# description: A command matching a goals.<g>.scope.commands.deny pattern denies.
command_denied := command_hits("deny", "command_denied")

# METADATA
# description: A command matching a goals.<g>.scope.commands.ask pattern asks.
command_ask := command_hits("ask", "command_ask")

command_hits(k, code) := [lib.reason(code, msg, $"data.loopx.permission.{code}", $"goals.{goal_id}.scope.commands.{k}") |
	some g in patterns(k)
	command_hit(g)
	msg := command_hit_message(g, k)
]

# command_hit: pattern g matches a command target, or names an action of
# the call ("git.push.force", "git.push*").
command_hit(g) if {
	some c in cmd_targets
	cmd_match(g, c)
}

command_hit(g) if {
	some a in actions
	cmd_match(g, a)
}

command_hit_message(g, k) := $"`{hits[0]}` matches scope.commands.{k} pattern {g}" if {
	hits := [c | some c in text_targets; cmd_match(g, c)]
	count(hits) > 0
} else := $"`{command}` is a `{hits[0].c}` (action {hits[0].a}), which matches scope.commands.{k} pattern {g}" if {
	hits := [{"a": a, "c": c} | some a in actions; c := canonical_commands[a]; cmd_match(g, c)]
	count(hits) > 0
} else := $"`{command}` takes action {hits[0]}, which matches scope.commands.{k} pattern {g}" if {
	hits := [a | some a in actions; cmd_match(g, a)]
	count(hits) > 0
}

# METADATA
# description: With scope.commands.allow set (a restriction, never a grant), a simple command matching none of it asks.
command_not_allowed := [lib.reason("command_not_allowed", $"`{c}` matches no scope.commands.allow pattern", "data.loopx.permission.command_not_allowed", $"goals.{goal_id}.scope.commands.allow") |
	count(patterns("allow")) > 0
	some c in ({s | some s in simple_commands} | {command | count(simple_commands) == 0; command != ""})
	not command_allowed(c)
]

command_allowed(c) if {
	some g in patterns("allow")
	cmd_match(g, c)
}

# METADATA
# description: |
#   A command line the engine cannot read (opaque: it cannot know what runs
#   or what is written; see input.permission.opaque) is never allowed: it
#   asks a human, or denies with goals.<g>.scope.commands.opaque: "deny".
#   An opaque line that names a protected path denies (protected, scope_denied).
command_opaque := [lib.reason("command_opaque", msg, "data.loopx.permission.command_opaque", $"goals.{goal_id}.scope.commands.opaque") |
	opaque
	msg := $"`{command}` cannot be read safely ({concat("; ", opaque_reasons)}): a human decides"
]

default opaque_mode := "ask"

opaque_mode := "deny" if cmd_spec.opaque == "deny"

opaque_as(mode) := command_opaque if opaque_mode == mode

else := []
