# A goal's scope (write, deny, commands, grant), and when one glob or
# command pattern is within another.
package loopx.adopt

scope_pairs contains [g, object_or_empty(object.get(o, "scope", {})), object_or_empty(object.get(n, "scope", {}))] if {
	some [g, o, n] in goal_pairs
}

# scope.write: empty is anywhere; narrowed when every new glob is within an old one.
changes contains change($"goals.{g}.scope.write", ov, nv, every_note("anywhere", ov, nv), direction(restriction_narrows(ov, nv, "path"))) if {
	some [g, os, ns] in scope_pairs
	ov := list(object.get(os, "write", []))
	nv := list(object.get(ns, "write", []))
	ov != nv
}

# scope.deny: every old glob must still be covered by a new one (a deny
# also covers the directories that may contain what it matches).
changes contains change($"goals.{g}.scope.deny", ov, nv, "", direction(kept(ov, nv, "cover"))) if {
	some [g, os, ns] in scope_pairs
	ov := list(object.get(os, "deny", []))
	nv := list(object.get(ns, "deny", []))
	ov != nv
}

# scope.commands.allow: empty is any command; narrowed as scope.write is.
changes contains change($"goals.{g}.scope.commands.allow", ov, nv, every_note("any command", ov, nv), direction(restriction_narrows(ov, nv, "command"))) if {
	some [g, os, ns] in scope_pairs
	oc := object_or_empty(object.get(os, "commands", {}))
	nc := object_or_empty(object.get(ns, "commands", {}))
	ov := list(object.get(oc, "allow", []))
	nv := list(object.get(nc, "allow", []))
	ov != nv
}

# scope.commands.deny: every old entry stays. scope.commands.ask: every old
# entry stays an ask or becomes a deny (deny is tighter than ask).
changes contains change($"goals.{g}.scope.commands.{k}", ov, nv, "", direction(kept(ov, keep, "exact"))) if {
	some [g, os, ns] in scope_pairs
	oc := object_or_empty(object.get(os, "commands", {}))
	nc := object_or_empty(object.get(ns, "commands", {}))
	some [k, also] in [["deny", []], ["ask", list(object.get(nc, "deny", []))]]
	ov := list(object.get(oc, k, []))
	nv := list(object.get(nc, k, []))
	ov != nv
	keep := array.concat(nv, also)
}

# scope.commands.opaque: what an unreadable command line gets (absent is
# ask): ask → deny tightens, anything else loosens.
changes contains change($"goals.{g}.scope.commands.opaque", ov, nv, "", direction(nv == "deny")) if {
	some [g, os, ns] in scope_pairs
	ov := object.get(object_or_empty(object.get(os, "commands", {})), "opaque", "ask")
	nv := object.get(object_or_empty(object.get(ns, "commands", {})), "opaque", "ask")
	ov != nv
}

changes contains change($"goals.{g}.scope.commands.{k}", ov, nv, " (a field loopx does not know)", "loosens") if {
	some [g, os, ns] in scope_pairs
	oc := object_or_empty(object.get(os, "commands", {}))
	nc := object_or_empty(object.get(ns, "commands", {}))
	some k in keys(oc, nc)
	not k in {"allow", "ask", "deny", "opaque"}
	ov := object.get(oc, k, null)
	nv := object.get(nc, k, null)
	ov != nv
}

# scope.grant.*: a grant is an allow (the host skips its own prompt): every
# new entry must be within an old one (empty grants nothing).
changes contains change($"goals.{g}.scope.grant.{k}", ov, nv, note, direction(every_within(nv, ov, kind))) if {
	some [g, os, ns] in scope_pairs
	og := object_or_empty(object.get(os, "grant", {}))
	ng := object_or_empty(object.get(ns, "grant", {}))
	some k in keys(og, ng)
	kind := grant_kind(k)
	ov := list(object.get(og, k, []))
	nv := list(object.get(ng, k, []))
	ov != nv
	note := unknown_note(k, {"commands", "tools", "paths"})
}

grant_kind(k) := object.get({"paths": "path", "commands": "command", "tools": "command"}, k, "unknown")

changes contains change($"goals.{g}.scope.{k}", ov, nv, " (a field loopx does not know)", "loosens") if {
	some [g, os, ns] in scope_pairs
	some k in keys(os, ns)
	not k in {"write", "deny", "commands", "grant"}
	ov := object.get(os, k, null)
	nv := object.get(ns, k, null)
	ov != nv
}

# restriction_narrows: a restriction list of globs (empty: no restriction)
# permits no more than before.
restriction_narrows(ov, nv, kind) if {
	count(ov) == 0
} else := every_within(nv, ov, kind) if {
	count(nv) > 0
} else := false

# every_within: every pattern of ns is within some pattern of os (true or false).
every_within(ns, os, kind) if {
	every n in ns {
		some o in os
		within(kind, n, o)
	}
} else := false

# kept: every old objection of os is still there in ns: the same string
# (exact), or covered by a new deny glob (cover). True or false.
kept(os, ns, kind) if {
	every o in os {
		some n in ns
		objection_kept(kind, o, n)
	}
} else := false

objection_kept("exact", o, n) if o == n

objection_kept("cover", o, n) if cover_within(o, n)

within("path", n, o) if path_within(n, o)

within("command", n, o) if cmd_within(n, o)

# path_within(n, o): every name path glob n matches (lib.glob_match), glob o
# matches: the same glob, o "**", or o "<literal dir>/**" and n below it.
path_within(n, o) if norm(n) == norm(o)

path_within(_, o) if norm(o) == "**"

path_within(n, o) if {
	dir := literal_dir(o)
	startswith(norm(n), concat("", [dir, "/"]))
}

# cover_within(o, n): every name deny glob o covers (permission's covers:
# a match, or a directory that may contain one), deny glob n covers too.
cover_within(o, n) if path_within(o, n)

cover_within(o, n) if norm(o) == literal_dir(n)

# literal_dir(g) is d for a glob "d/**" whose d has no glob characters.
literal_dir(g) := d if {
	endswith(norm(g), "/**")
	d := trim_suffix(norm(g), "/**")
	d != ""
	literal(d)
}

norm(g) := trim_prefix(g, "./")

literal(s) if not regex.match(`[*?\[\]{}\\!]`, s)

# cmd_within(n, o): every command pattern n matches (* matches anything), o
# matches: the same string, or o is a literal prefix and * ("go test*",
# "*") and n starts with that prefix. An entry shaped like an action name
# (git.push: words joined by dots) is compared exactly: it may name an
# action rather than a command's text.
cmd_within(n, o) if n == o

cmd_within(n, o) if {
	endswith(o, "*")
	prefix := trim_suffix(o, "*")
	literal(prefix)
	startswith(n, prefix)
	not action_like(n)
}

action_like(s) if regex.match(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_*-]+)+$`, s)
