# The permission request and the goal's scope as the rules read them:
# normalised views of input.permission and data.loopx.spec, defined
# whatever the input's shape.
package loopx.permission

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

# argvs are the simple commands' normalised argv lists (read with object.get:
# an input written by hand may lack them); without them each segment split
# on spaces stands in.
argvs := [a | some x in object.get(req, "argvs", null); is_array(x); a := strs(x); count(a) > 0] if has_argvs

else := [a | some c in segments; a := [w | some w in split(trim_space(c), " "); w != ""]; count(a) > 0]

has_argvs if is_array(object.get(req, "argvs", null))

# simple_commands are the simple commands as command patterns see them.
simple_commands := [concat(" ", a) | some a in argvs]

# Everything a command pattern is matched against: the raw line, each
# simple command, and the canonical command of each action the line (or
# tool) carries, so that `git send-pack`, `git subtree push`, a push
# through an alias (action git.push) ask or deny under "git push*" like
# `git push`, and any force push (git.push.force) under "git push --force*".
# A pattern is matched against the action names too (command_hit).
cmd_targets := text_targets | {canonical_commands[a] | some a in actions}

text_targets contains c if {
	some c in array.flatten([[command], segments, simple_commands])
	c != ""
}

# canonical_commands are the commands loopx's actions stand for.
canonical_commands := {
	"git.push": "git push", "git.push.force": "git push --force", "git.merge": "git merge", "git.commit": "git commit", "git.tag": "git tag",
	"npm.publish": "npm publish", "loopx.gate.answer": "loopx gate answer",
}

actions contains a if {
	some a in array.concat([object.get(req, "action", "")], strs(object.get(req, "actions", [])))
	is_string(a)
	a != ""
}

# call_name names the call in messages: its tool, else its command, else "the call".
default call_name := "the call"

call_name := object.get(req, "tool", "") if object.get(req, "tool", "") != ""

# (count, not command != "": OPA v1.22's formatter garbles a string literal
# in the body of a middle else, and every .rego file is kept opa fmt clean.)
else := $"`{command}`" if count(command) > 0

# opaque_reasons say why the engine cannot know what the command line runs
# or writes (input.permission.opaque); a line that does not parse, or a
# command line without any simple command read from it, is opaque too.
opaque_reasons := array.concat(strs(object.get(req, "opaque", [])), unread)

# (The reader says why a line does not parse; the policy says it only when the reader did not.)
default unread := []

unread := ["it does not parse"] if {
	req.command_parsed == false
	count(strs(object.get(req, "opaque", []))) == 0
} else := ["no simple command was read from it"] if {
	not req.command_parsed == false
	command != ""
	not has_argvs
	count(segments) == 0
}

opaque if count(opaque_reasons) > 0

# names are the project-relative names a path is checked under (itself and its symlink target).
names(p) := {n | some n in [p.path, object.get(p, "resolved", p.path)]; is_string(n); n != ""}

outside_path(p) if p.outside_project == true

outside_path(p) if p.symlink_outside == true

# cmd_match matches a command pattern: * matches anything, / and . included
# (glob.match's empty delimiter list would mean ".").
cmd_match(g, c) := glob.match(g, ["\u0000"], c)

mentioned(p) if p.mentioned == true
