# METADATA
# title: loopx.adopt
# description: |
#   Does a new revision of loopx/ only tighten the rules in effect? input.old
#   and input.new are the exported specs (data.loopx.spec's shape) of the
#   adopted revision and of the files on disk. Every field is compared by
#   what its value permits, with the field's own meaning of empty and
#   absent: an empty goals.<g>.agents is every agent, an empty scope.write
#   is anywhere, an empty scope.commands.allow is any command, an absent
#   quota limit is unlimited. A revision that permits nothing more than the
#   adopted one (a gate added, a quota lowered, a glob narrowed, a grant or
#   an agent removed) is adopted automatically; every other difference
#   loosens and waits for a human (`loopx adopt`). What cannot be placed in
#   a direction loosens: a field this rule does not know, text an agent or
#   a human is shown (an objective, a gate's question), a glob whose
#   narrowing is not proven (path_within, cover_within, cmd_within).
#   Command, tool, guard and action entries are compared as opaque strings,
#   exactly, except where a literal prefix followed by * provably contains
#   another pattern. Policy changes never reach this rule: Go holds every
#   policy change pending.
package loopx.adopt

# METADATA
# description: |
#   {"verdict": "adopt"|"pending", "loosens": [reason], "tightens":
#   [reason]}; always defined (an input that is not two objects is
#   pending). Each reason's ref is the field, its message
#   "<ref>: <old> → <new> (<what that means>): loosens|tightens".
# entrypoint: true
default decision := {
	"verdict": "pending",
	"loosens": [{
		"code": "loosens", "message": "the revisions cannot be compared: loosens",
		"rule": "data.loopx.adopt.decision", "ref": "",
	}],
	"tightens": [],
}

decision := {"verdict": "adopt", "loosens": [], "tightens": tightens} if {
	is_object(input.old)
	is_object(input.new)
	count(loosens) == 0
}

decision := {"verdict": "pending", "loosens": loosens, "tightens": tightens} if {
	is_object(input.old)
	is_object(input.new)
	count(loosens) > 0
}

old := input.old

new := input.new

# loosens and tightens list the changes in each direction, sorted by ref.
loosens := listed("loosens")

tightens := listed("tightens")

listed(dir) := [reason(dir, c.ref, c.msg) | some c in sort([{"ref": c.ref, "msg": c.msg} | some c in changes; c.dir == dir])]

reason(dir, ref, msg) := {"code": dir, "message": msg, "rule": "data.loopx.adopt.decision", "ref": ref}

# change is one field's change: ref, old and new value, what the values
# mean (note, "" when they speak for themselves), and its direction.
change(ref, ov, nv, note, dir) := {"ref": ref, "dir": dir, "msg": $"{ref}: {show(ov)} → {show(nv)}{note}: {dir}"}

# direction is "tightens" when tight holds, else "loosens".
direction(true) := "tightens"

direction(false) := "loosens"

# show renders a value in a change's message (absent for a missing field).
show(x) := "absent" if x == null

else := concat("", ["[", concat(", ", [elem(e) | some e in x]), "]"]) if is_array(x)

else := elem(x)

# A string is shown as it is unless it holds a control character or a
# Unicode format character (a newline, an escape, a bidi override), which
# an agent could use to push the real list off a human's screen or forge
# lines of it: then it is shown JSON-quoted, control characters escaped
# and format characters (which JSON leaves as they are) shown as U+FFFD.
elem(e) := e if {
	is_string(e)
	not regex.match(`[\x{0}-\x{1f}\x{7f}-\x{9f}\p{Cf}]`, e)
} else := regex.replace(json.marshal(e), `\p{Cf}`, "\ufffd")

# -- helpers -------------------------------------------------------------------

keys(a, b) := object.keys(object_or_empty(a)) | object.keys(object_or_empty(b))

has_key(obj, k) if object.get(obj, k, null) != null

object_or_empty(x) := x if is_object(x)

else := {}

# list is x when it is an array, else [] (a null or missing list is empty).
list(x) := x if is_array(x)

else := []
