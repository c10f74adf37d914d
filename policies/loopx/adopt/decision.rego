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

# -- the spec's top level -----------------------------------------------------

top_known := {"project", "audit", "agents", "goals"}

# A top-level field loopx does not know cannot be placed: it loosens.
changes contains change(k, ov, nv, " (a field loopx does not know)", "loosens") if {
	some k in keys(old, new)
	not k in top_known
	ov := object.get(old, k, null)
	nv := object.get(new, k, null)
	ov != nv
}

# project.name names the project (its state's anchor): not placed, loosens.
# project.policy_deadline: a shorter deadline denies sooner (tightens).
changes contains c if {
	op := object_or_empty(object.get(old, "project", {}))
	np := object_or_empty(object.get(new, "project", {}))
	some k in keys(op, np)
	ov := object.get(op, k, null)
	nv := object.get(np, k, null)
	ov != nv
	c := project_change(k, ov, nv)
}

project_change(k, ov, nv) := change("project.policy_deadline", ov, nv, " (a policy evaluation past it denies)", direction(shorter_or_same(ov, nv))) if {
	k == "policy_deadline"
} else := change($"project.{k}", ov, nv, unknown_note(k, {"name"}), "loosens")

# shorter_or_same: duration text nv is no longer than ov (false when either does not parse).
shorter_or_same(ov, nv) if {
	every d in [ov, nv] {
		is_string(d)
		regex.match(`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`, d)
	}
	time.parse_duration_ns(nv) <= time.parse_duration_ns(ov)
} else := false

# audit.retain: audit history pruned sooner loosens (retain added or
# shortened); kept longer or for good (raised or removed) tightens.
changes contains change("audit.retain", show_retain(oa), show_retain(na), "", direction(retain_tightens(oa, na))) if {
	oa := object_or_empty(object.get(old, "audit", {}))
	na := object_or_empty(object.get(new, "audit", {}))
	object.get(oa, "retain_seconds", null) != object.get(na, "retain_seconds", null)
}

changes contains change($"audit.{k}", ov, nv, " (a field loopx does not know)", "loosens") if {
	oa := object_or_empty(object.get(old, "audit", {}))
	na := object_or_empty(object.get(new, "audit", {}))
	some k in keys(oa, na)
	not k in {"retain", "retain_seconds"}
	ov := object.get(oa, k, null)
	nv := object.get(na, k, null)
	ov != nv
}

show_retain(a) := object.get(a, "retain", "absent (kept until pruned by hand)")

retain_tightens(oa, na) if {
	not na.retain_seconds
} else if {
	na.retain_seconds >= oa.retain_seconds
} else := false

# -- agents: the declared agents -----------------------------------------------

old_agents := object_or_empty(object.get(old, "agents", {}))

new_agents := object_or_empty(object.get(new, "agents", {}))

# An agent declared anew becomes known (it may work on every goal whose
# agents list is empty): loosens. One removed is unknown again: tightens.
changes contains change($"agents.{a}", null, "declared", " (a new known agent)", "loosens") if {
	some a, _ in new_agents
	not has_key(old_agents, a)
}

changes contains change($"agents.{a}", "declared", null, " (unknown unless registered)", "tightens") if {
	some a, _ in old_agents
	not has_key(new_agents, a)
}

# A declared agent's host or role changed cannot be placed (the role
# decides which todos it takes); mode active → monitor_only tightens
# (monitor todos only).
changes contains c if {
	some a, o in old_agents
	n := new_agents[a]
	some k in keys(o, n)
	ov := object.get(o, k, null)
	nv := object.get(n, k, null)
	ov != nv
	c := agent_change(a, k, ov, nv)
}

agent_change(a, k, ov, nv) := change($"agents.{a}.mode", ov, nv, "", direction(nv == "monitor_only")) if {
	k == "mode"
} else := change($"agents.{a}.{k}", ov, nv, unknown_note(k, {"host", "role"}), "loosens")

# -- goals ---------------------------------------------------------------------

old_goals := object_or_empty(object.get(old, "goals", {}))

new_goals := object_or_empty(object.get(new, "goals", {}))

# A goal added is new work agents may do: loosens; one removed tightens.
changes contains change($"goals.{g}", null, "declared", " (new work for agents)", "loosens") if {
	some g, _ in new_goals
	not has_key(old_goals, g)
}

changes contains change($"goals.{g}", "declared", null, " (no more work on it)", "tightens") if {
	some g, _ in old_goals
	not has_key(new_goals, g)
}

goal_pairs contains [g, object_or_empty(o), object_or_empty(new_goals[g])] if some g, o in old_goals

goal_known := {"objective", "preset", "agents", "quota", "stall", "scope", "gates", "evidence", "todos"}

# What agents are given to do (objective) and which preset a goal names are
# not placed in a direction: a change loosens (a preset's settings are
# compared field by field as the goal's own).
changes contains change($"goals.{g}.{k}", ov, nv, note, "loosens") if {
	some [g, o, n] in goal_pairs
	some k in keys(o, n)
	not k in (goal_known - {"objective", "preset"})
	ov := object.get(o, k, null)
	nv := object.get(n, k, null)
	ov != nv
	note := goal_note(k)
}

goal_note(k) := object.get(
	{"objective": " (what agents are given to do)", "preset": " (a preset's own settings are compared as the goal's)"},
	k, " (a field loopx does not know)",
)

# goals.<g>.agents: empty is every agent (declared or registered).
changes contains change($"goals.{g}.agents", ov, nv, every_note("every agent", ov, nv), direction(within_list(ov, nv))) if {
	some [g, o, n] in goal_pairs
	ov := list(object.get(o, "agents", []))
	nv := list(object.get(n, "agents", []))
	ov != nv
}

# within_list: a restriction list (empty: no restriction) permits no more
# than before: new is empty only if old was, and holds only old entries.
within_list(ov, nv) := restriction_narrows(ov, nv, "exact")

# every_note says what an empty restriction list means, on whichever side is empty.
every_note(what, ov, nv) := $" ({what})" if {
	count(nv) == 0
	count(ov) > 0
} else := $" (was {what})" if {
	count(ov) == 0
	count(nv) > 0
} else := ""

# goals.<g>.todos: a todo added is new work (loosens), one removed
# tightens, one changed (kind, cadence, title, priority) cannot be placed.
changes contains change($"goals.{g}.todos.{t}", null, "declared", " (new work for agents)", "loosens") if {
	some [g, o, n] in goal_pairs
	some t, _ in object_or_empty(object.get(n, "todos", {}))
	not has_key(object_or_empty(object.get(o, "todos", {})), t)
}

changes contains change($"goals.{g}.todos.{t}", "declared", null, "", "tightens") if {
	some [g, o, n] in goal_pairs
	some t, _ in object_or_empty(object.get(o, "todos", {}))
	not has_key(object_or_empty(object.get(n, "todos", {})), t)
}

changes contains change($"goals.{g}.todos.{t}", ot, nt, "", "loosens") if {
	some [g, o, n] in goal_pairs
	some t, ot in object_or_empty(object.get(o, "todos", {}))
	nt := object_or_empty(object.get(n, "todos", {}))[t]
	ot != nt
}

# -- quota ---------------------------------------------------------------------

# rounds, tokens, cost_usd: absent is unlimited; lower or added tightens.
changes contains change($"goals.{g}.quota.{f}", ov, nv, unlimited_note(ov, nv), direction(limit_tightens(ov, nv))) if {
	some [g, o, n] in goal_pairs
	oq := object_or_empty(object.get(o, "quota", {}))
	nq := object_or_empty(object.get(n, "quota", {}))
	some f in {"rounds", "tokens", "cost_usd"}
	ov := object.get(oq, f, null)
	nv := object.get(nq, f, null)
	ov != nv
}

unlimited_note(ov, nv) := " (unlimited)" if {
	nv == null
} else := " (was unlimited)" if {
	ov == null
} else := ""

# limit_tightens: a limit added, or lowered (false for anything else).
limit_tightens(ov, nv) if {
	ov == null
	is_number(nv)
} else := ordered(ov, nv, true)

# compute: the share of the window rounds may take (absent is 1): lower tightens.
# min_interval_seconds (absent is 0): longer tightens.
changes contains change($"goals.{g}.quota.{f}", ov, nv, note, direction(dir)) if {
	some [g, o, n] in goal_pairs
	oq := object_or_empty(object.get(o, "quota", {}))
	nq := object_or_empty(object.get(n, "quota", {}))
	some [f, dflt, lower, note] in [["compute", 1, true, ""], ["min_interval_seconds", 0, false, " (seconds between rounds)"]]
	ov := object.get(oq, f, dflt)
	nv := object.get(nq, f, dflt)
	ov != nv
	dir := ordered(ov, nv, lower)
}

# ordered: nv is no more permissive than ov, for a field where lower is
# tighter (lower true) or higher is (lower false); a non-number loosens.
ordered(ov, nv, true) if {
	is_number(ov)
	is_number(nv)
	nv <= ov
} else := false

ordered(ov, nv, false) if {
	is_number(ov)
	is_number(nv)
	nv >= ov
} else := false

# The rolling window's length cannot be placed: a longer window holds
# more of the history against the same limits, but its compute share is
# a longer span of time too. Any change loosens.
changes contains change($"goals.{g}.quota.window", object.get(oq, "window", null), object.get(nq, "window", null), "", "loosens") if {
	some [g, o, n] in goal_pairs
	oq := object_or_empty(object.get(o, "quota", {}))
	nq := object_or_empty(object.get(n, "quota", {}))
	object.get(oq, "window_seconds", null) != object.get(nq, "window_seconds", null)
}

# The text forms of durations (window, min_interval) count through their
# *_seconds; without those (a hand-made input) a change loosens. Any other
# quota field loopx does not know loosens.
changes contains change($"goals.{g}.quota.{k}", ov, nv, note, "loosens") if {
	some [g, o, n] in goal_pairs
	oq := object_or_empty(object.get(o, "quota", {}))
	nq := object_or_empty(object.get(n, "quota", {}))
	some k in keys(oq, nq)
	not k in {"rounds", "tokens", "cost_usd", "compute", "min_interval_seconds", "window_seconds"}
	ov := object.get(oq, k, null)
	nv := object.get(nq, k, null)
	ov != nv
	not counted_by_seconds(k, oq, nq)
	note := unknown_note(k, {"window", "min_interval"})
}

# counted_by_seconds: k is the text form of a duration whose seconds both sides carry.
counted_by_seconds(k, a, b) if {
	s := concat("", [k, "_seconds"])
	is_number(a[s])
	is_number(b[s])
}

unknown_note(k, known) := "" if k in known

else := " (a field loopx does not know)"

# -- stall and evidence --------------------------------------------------------

# stall.max_no_progress: fewer rounds without progress before a gate tightens.
# evidence.stale_after_seconds: evidence stale sooner tightens.
changes contains change($"goals.{g}.{sec}.{f}", ov, nv, "", direction(ordered(ov, nv, true))) if {
	some [g, o, n] in goal_pairs
	some [sec, f] in [["stall", "max_no_progress"], ["evidence", "stale_after_seconds"]]
	ov := object.get(object_or_empty(object.get(o, sec, {})), f, null)
	nv := object.get(object_or_empty(object.get(n, sec, {})), f, null)
	ov != nv
}

changes contains change($"goals.{g}.{sec}.{k}", ov, nv, unknown_note(k, {"stale_after"}), "loosens") if {
	some [g, o, n] in goal_pairs
	some sec in ["stall", "evidence"]
	os := object_or_empty(object.get(o, sec, {}))
	ns := object_or_empty(object.get(n, sec, {}))
	some k in keys(os, ns)
	not k in {"max_no_progress", "stale_after_seconds"}
	ov := object.get(os, k, null)
	nv := object.get(ns, k, null)
	ov != nv
	not counted_by_seconds(k, os, ns)
}

# -- scope ---------------------------------------------------------------------

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

# -- gates ---------------------------------------------------------------------

gate_pairs contains [g, object_or_empty(object.get(o, "gates", {})), object_or_empty(object.get(n, "gates", {}))] if {
	some [g, o, n] in goal_pairs
}

# A gate added blocks more work: tightens. One removed loosens.
changes contains change($"goals.{g}.gates.{name}", null, "declared", " (an open gate blocks work)", "tightens") if {
	some [g, og, ng] in gate_pairs
	some name, _ in ng
	not has_key(og, name)
}

changes contains change($"goals.{g}.gates.{name}", "declared", null, " (the work it blocked goes on)", "loosens") if {
	some [g, og, ng] in gate_pairs
	some name, _ in og
	not has_key(ng, name)
}

# A gate changed: what it blocks (guards, todos, agents: its scope) must
# be at least what it blocked; answerers may only be removed; its
# question, options and expiry are not placed (loosen when changed).
changes contains change($"goals.{g}.gates.{name}.scope", gate_scope(o), gate_scope(n), "", direction(gate_blocks_more(o, n))) if {
	some [g, og, ng] in gate_pairs
	some name, o0 in og
	n := object_or_empty(ng[name])
	o := object_or_empty(o0)
	gate_scope(o) != gate_scope(n)
}

changes contains change($"goals.{g}.gates.{name}.answerers", ov, nv, "", direction(every_within(nv, ov, "exact"))) if {
	some [g, og, ng] in gate_pairs
	some name, o in og
	n := object_or_empty(ng[name])
	ov := list(object.get(object_or_empty(o), "answerers", []))
	nv := list(object.get(n, "answerers", []))
	ov != nv
}

changes contains change($"goals.{g}.gates.{name}.{k}", ov, nv, unknown_note(k, gate_known), "loosens") if {
	some [g, og, ng] in gate_pairs
	some name, o0 in og
	n := object_or_empty(ng[name])
	o := object_or_empty(o0)
	some k in keys(o, n)
	not k in {"guards", "todos", "agents", "answerers"}
	ov := object.get(o, k, null)
	nv := object.get(n, k, null)
	ov != nv
	not counted_by_seconds(k, o, n)
}

gate_known := {"question", "options", "expires_after", "expires_after_seconds", "on_expiry"}

within("exact", n, o) if n == o

# gate_scope is what a spec gate blocks while open (the instance's scope
# kind: guards make it an action gate, else todos a todo gate, else agents
# an agent gate, else it blocks the whole goal).
gate_scope(gt) := {"kind": kind, "guards": guards, "todos": todos, "agents": agents} if {
	guards := sort(list(object.get(gt, "guards", [])))
	todos := sort(list(object.get(gt, "todos", [])))
	agents := sort(list(object.get(gt, "agents", [])))
	kind := gate_kind(guards, todos, agents)
}

gate_kind(guards, todos, agents) := "action" if {
	count(guards) > 0
} else := "todo" if {
	count(todos) > 0
} else := "agent" if {
	count(agents) > 0
} else := "goal"

# gate_blocks_more: the new gate blocks at least what the old one did: it
# blocks the whole goal, or it is of the same kind and its list holds
# every old entry (the lists its kind does not read unchanged).
gate_blocks_more(o, n) if {
	gate_scope(n).kind == "goal"
} else if {
	so := gate_scope(o)
	sn := gate_scope(n)
	so.kind == sn.kind
	f := {"action": "guards", "todo": "todos", "agent": "agents"}[so.kind]
	kept(so[f], sn[f], "exact")
	every k in {"guards", "todos", "agents"} - {f} {
		so[k] == sn[k]
	}
} else := false

# -- helpers -------------------------------------------------------------------

keys(a, b) := object.keys(object_or_empty(a)) | object.keys(object_or_empty(b))

has_key(obj, k) if object.get(obj, k, null) != null

object_or_empty(x) := x if is_object(x)

else := {}

# list is x when it is an array, else [] (a null or missing list is empty).
list(x) := x if is_array(x)

else := []
