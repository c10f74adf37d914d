# A goal's own fields: the goal itself, its agents and todos, quota,
# stall and evidence: each change and its direction.
package loopx.adopt

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

goal_pairs contains [g, object_or_empty(o), object_or_empty(n)] if {
	some g, o in old_goals
	n := new_goals[g]
}

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
	some [f, dflt, lower_tighter, note] in [["compute", 1, true, ""], ["min_interval_seconds", 0, false, " (seconds between rounds)"]]
	ov := object.get(oq, f, dflt)
	nv := object.get(nq, f, dflt)
	ov != nv
	dir := ordered(ov, nv, lower_tighter)
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
