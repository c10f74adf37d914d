# METADATA
# title: loopx.adopt
# description: |
#   Does a new revision of loopx/ only tighten the rules in effect (design
#   §16)? input.old and input.new are the exported specs (data.loopx.spec's
#   shape) of the adopted revision and of the files on disk. A change that
#   only tightens (a gate added, a quota lowered, a scope narrowed, a grant
#   removed, a goal or agent removed) is adopted automatically; every other
#   difference loosens and waits for a human (`loopx adopt`). When in doubt
#   it loosens: only the comparisons below count as tightening, anything
#   else that differs is listed. Policy changes never reach this rule: Go
#   holds every policy change pending.
package loopx.adopt

import data.loopx.lib

# METADATA
# description: |
#   {"verdict": "adopt"|"pending", "loosens": [reason]}; always defined
#   (an input that is not two objects is pending).
# entrypoint: true
default decision := {"verdict": "pending", "loosens": [{
	"code": "loosens", "message": "the revisions cannot be compared",
	"rule": "data.loopx.adopt.decision", "ref": "",
}]}

decision := {"verdict": "adopt", "loosens": []} if {
	is_object(input.old)
	is_object(input.new)
	count(loosens) == 0
}

decision := {"verdict": "pending", "loosens": loosens} if {
	is_object(input.old)
	is_object(input.new)
	count(loosens) > 0
}

old := input.old

new := input.new

# loosens lists every change that loosens, sorted by ref.
loosens := [lib.reason("loosens", msg, "data.loopx.adopt.decision", ref) | some [ref, msg] in sort(found)]

found contains [k, $"{k} changed"] if {
	some k in keys(old, new)
	not k in {"goals", "agents", "audit"}
	object.get(old, k, null) != object.get(new, k, null)
}

# Audit retention: history pruned sooner loosens (audit.retain added or
# shortened); kept longer or for good (retain raised or removed) tightens.
found contains ["audit.retain", "audit.retain added or shortened: audit history is pruned sooner"] if {
	not retain_tightens(object.get(old, "audit", {}), object.get(new, "audit", {}))
}

found contains ["audit", "audit changed"] if {
	some k in keys(object.get(old, "audit", {}), object.get(new, "audit", {}))
	not k in {"retain", "retain_seconds"}
	object.get(object.get(old, "audit", {}), k, null) != object.get(object.get(new, "audit", {}), k, null)
}

retain_tightens(_, nv) if not nv.retain_seconds

retain_tightens(ov, nv) if nv.retain_seconds >= ov.retain_seconds

# Agents: one added or changed loosens; one removed tightens.
found contains [$"agents.{a}", $"agent {a} added or changed"] if {
	some a, spec in object.get(new, "agents", {})
	object.get(object.get(old, "agents", {}), a, null) != spec
}

# Goals: one added loosens (new work an agent may do); one removed tightens.
found contains [$"goals.{g}", $"goal {g} added"] if {
	some g, _ in object.get(new, "goals", {})
	not object.get(old, "goals", {})[g]
}

found contains [$"goals.{g}.{k}", msg] if {
	some g, o in object.get(old, "goals", {})
	n := object.get(new, "goals", {})[g]
	some k in keys(o, n)
	ov := object.get(o, k, null)
	nv := object.get(n, k, null)
	ov != nv
	some msg in goal_field(k, ov, nv)
}

# goal_field lists what loosens when field k of a goal changes from ov to nv.
goal_field(k, ov, nv) := {m | some m in quota_loosens(ov, nv)} if k == "quota"

else := {m | some m in gate_loosens(ov, nv)} if k == "gates"

else := {m | some m in scope_loosens(ov, nv)} if k == "scope"

else := {"agents added to the goal"} if {
	k == "agents"
	count(set_of(nv) - set_of(ov)) > 0
} else := set() if k == "agents"

else := {"stall.max_no_progress raised"} if {
	k == "stall"
	not stall_tightens(ov, nv)
} else := set() if k == "stall"

else := {"evidence.stale_after raised"} if {
	k == "evidence"
	not evidence_tightens(ov, nv)
} else := set() if k == "evidence"

else := {$"{k} changed"}

# A limit (rounds, tokens, cost_usd) absent means unlimited.
limit_loosens(ov, nv, f) if {
	f in object.keys(ov)
	not f in object.keys(nv)
}

limit_loosens(ov, nv, f) if nv[f] > ov[f]

quota_loosens(ov, nv) := {m |
	some f in keys(ov, nv)
	object.get(ov, f, null) != object.get(nv, f, null)
	some m in quota_field(f, ov, nv)
}

quota_field(f, ov, nv) := {$"quota.{f} raised or removed"} if {
	f in {"rounds", "tokens", "cost_usd"}
	limit_loosens(ov, nv, f)
} else := set() if f in {"cost_usd", "rounds", "tokens"}

else := {"quota.compute raised"} if {
	f == "compute"
	not nv.compute < ov.compute
} else := set() if f == "compute"

else := {"quota.min_interval shortened"} if {
	f == "min_interval_seconds"
	not nv.min_interval_seconds > ov.min_interval_seconds
} else := set() if f in {"min_interval", "min_interval_seconds"}

else := {$"quota.{f} changed"}

# Gates: added tightens; removed or changed in any way loosens.
gate_loosens(ov, nv) := {m |
	some name, g in object_or_empty(ov)
	object.get(object_or_empty(nv), name, null) != g
	m := $"gate {name} removed or changed"
}

scope_loosens(ov, nv) := {m | some k in keys(ov, nv); object.get(ov, k, null) != object.get(nv, k, null); some m in scope_field(k, ov, nv)}

scope_field(k, ov, nv) := {"scope.write widened"} if {
	k == "write"
	count(set_of(nv.write) - set_of(ov.write)) > 0
} else := set() if k == "write"

else := {"scope.deny shortened"} if {
	k == "deny"
	count(set_of(ov.deny) - set_of(object.get(nv, "deny", []))) > 0
} else := set() if k == "deny"

else := {m | some m in commands_loosens(object_or_empty(ov.commands), object_or_empty(object.get(nv, "commands", {})))} if k == "commands"

else := {"scope.grant widened"} if {
	k == "grant"
	some f in keys(object_or_empty(ov.grant), object_or_empty(nv.grant))
	count(set_of(object.get(nv.grant, f, [])) - set_of(object.get(ov.grant, f, []))) > 0
} else := set() if k == "grant"

else := {$"scope.{k} changed"}

commands_loosens(ov, nv) := {m | some k in keys(ov, nv); object.get(ov, k, null) != object.get(nv, k, null); some m in command_field(k, ov, nv)}

command_field(k, ov, nv) := {"scope.commands.allow widened"} if {
	k == "allow"
	count(set_of(object.get(nv, "allow", [])) - set_of(object.get(ov, "allow", []))) > 0
} else := set() if k == "allow"

else := {"scope.commands.deny shortened"} if {
	k == "deny"
	count(set_of(object.get(ov, "deny", [])) - set_of(object.get(nv, "deny", []))) > 0
} else := set() if k == "deny"

# An ask pattern may move to deny (tighter), not disappear.
else := {"scope.commands.ask shortened"} if {
	k == "ask"
	count((set_of(object.get(ov, "ask", [])) - set_of(object.get(nv, "ask", []))) - set_of(object.get(nv, "deny", []))) > 0
} else := set() if k == "ask"

else := set() if {
	k == "opaque"
	nv.opaque == "deny"
}

else := {$"scope.commands.{k} changed"}

stall_tightens(ov, nv) if {
	object.keys(ov) == object.keys(nv)
	nv.max_no_progress <= ov.max_no_progress
}

evidence_tightens(ov, nv) if nv.stale_after_seconds <= ov.stale_after_seconds

keys(a, b) := object.keys(object_or_empty(a)) | object.keys(object_or_empty(b))

object_or_empty(x) := x if is_object(x)

else := {}

set_of(x) := {v | some v in x} if is_array(x)

else := set()
