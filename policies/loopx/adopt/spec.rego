# The spec's top level (unknown fields, project, audit) and its declared
# agents: each change and its direction.
package loopx.adopt

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
# project.sandbox is placed by sandbox.rego.
changes contains c if {
	op := object_or_empty(object.get(old, "project", {}))
	np := object_or_empty(object.get(new, "project", {}))
	some k in keys(op, np)
	k != "sandbox"
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
