# Grants (goals.<g>.scope.grant): the only way to an allow.
package loopx.permission

import data.loopx.lib

# METADATA
# scope: document
# description: |
#   A grant (goals.<g>.scope.grant) matches the whole call: its tool name
#   matches a grant.tools pattern; or every part of it is granted, the part
#   being a shell command line (readable, and every simple command matches a
#   grant.commands pattern) and the paths a writing or shell tool writes
#   (every name matches a grant.paths glob and scope.write when that is set).
#   A tool that is neither (an MCP tool, WebFetch) is granted by grant.tools
#   only. An opaque line is never granted, whatever grant.tools or
#   grant.commands say, nor one whose argv may hide what runs
#   (command_words_unsure); a grant never overrides an objection (deny and
#   ask come first).
default granted := []

granted := [tool_grant] if {
	not opaque
	not named_only_ungranted
	tool_grant
} else := parts_grant if {
	not opaque
	not named_only_ungranted
	grantable_kind
	command_granted
	paths_granted

	# Last: its messages are built only for a call the grant covers.
	count(parts_grant) > 0
}

default grant := {}

grant := scope.grant if is_object(scope.grant)

grant_list(k) := strs(object.get(grant, k, []))

tool_name := object.get(req, "tool", "")

tool_grant := lib.reason("granted", $"{tool_name} matches scope.grant.tools pattern {gs[0]}", "data.loopx.permission.granted", $"goals.{goal_id}.scope.grant.tools") if {
	tool_name != ""
	gs := [g | some g in grant_list("tools"); cmd_match(g, tool_name)]
	count(gs) > 0
}

# grantable_kind: a shell or file-writing tool, or a question without a tool.
grantable_kind if tool_name == ""

grantable_kind if {
	some a in actions
	a in {"shell.exec", "fs.write"}
}

# grant_paths are the paths a call writes (a mentioned path is only named).
grant_paths := [p | some p in paths; not mentioned(p)]

parts_grant := array.concat(
	[lib.reason("granted", $"every simple command matches scope.grant.commands: {concat(", ", command_grants)}", "data.loopx.permission.granted", $"goals.{goal_id}.scope.grant.commands") | command != ""],
	[lib.reason("granted", $"every path matches scope.grant.paths: {concat(", ", path_grants)}", "data.loopx.permission.granted", $"goals.{goal_id}.scope.grant.paths") | count(grant_paths) > 0],
)

command_grants := [$"`{c}` ({gs[0]})" |
	some i, a in argvs
	c := concat(" ", a)
	gs := [g | some g in grant_list("commands"); grant_covers(g, c, i)]
	count(gs) > 0
]

# grant_covers: grant.commands entry g covers the simple command c (argv
# number i): a pattern matching it, or the name of an action it takes
# (input.permission.argv_actions).
grant_covers(g, c, _) if cmd_match(g, c)

grant_covers(g, _, i) if g in argv_actions(i)

argv_actions(i) := strs(object.get(req, "argv_actions", [])[i]) if is_array(object.get(req, "argv_actions", [])[i])

else := []

# named_only_actions are the actions a grant covers only by naming them in
# scope.grant.commands: no pattern, broader action or tool grant does (a
# grant of git.push or "git push*", or of the Bash tool, never covers a
# force push).
named_only_actions := {"git.push.force"}

named_only_ungranted if {
	some a in actions
	a in named_only_actions
	not a in grant_list("commands")
}

command_granted if command == ""

command_granted if {
	count(simple_commands) > 0
	count(command_grants) == count(simple_commands)
	not command_words_unsure
}

# command_words_unsure: the engine's argv hides something that changes what
# a granted command runs: a command word named by a path (argv[0] is its
# base name: /tmp/x/go matches "go test*"), a line that redefines names
# (PATH=, alias, a function), or a leading NAME=value assignment
# (GOFLAGS=-toolexec=…, LD_PRELOAD=…). Such a line is not granted (defer).
command_words_unsure if {
	some a in argvs
	renamable(a[0])
}

command_words_unsure if regex.match(`(?:^|[\s;&|(])[A-Za-z_][A-Za-z0-9_]*=`, command)

path_grants := [$"{p.path} ({gs[0]})" |
	some p in grant_paths
	gs := [g | some g in grant_list("paths"); every n in names(p) {
		lib.glob_match(g, n)
	}]
	count(gs) > 0
	writable_if_restricted(p)
]

paths_granted if count(path_grants) == count(grant_paths)

writable_if_restricted(_) if count(globs("write")) == 0

writable_if_restricted(p) if every_writable(p)
