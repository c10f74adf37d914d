# A goal's gates: added, removed, and what a changed gate blocks.
package loopx.adopt

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
gate_scope(spec_gate) := {"kind": kind, "guards": guards, "todos": todos, "agents": agents} if {
	guards := sort(list(object.get(spec_gate, "guards", [])))
	todos := sort(list(object.get(spec_gate, "todos", [])))
	agents := sort(list(object.get(spec_gate, "agents", [])))
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
