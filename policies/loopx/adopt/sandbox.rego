# How a change of project.sandbox is placed. loopx run confines the
# agent command by the operating system: mode "required" refuses to run
# it unconfined, "auto" (the default, also when absent) runs it
# unconfined only where confinement is unavailable and says so, "off"
# never confines it; writable lists paths outside the work tree the
# command may write. A move toward less confinement (required → auto →
# off) or a writable path not in the adopted list loosens; a move toward
# more, or writable paths removed, tightens. Anything else in sandbox
# loosens.
package loopx.adopt

sandbox_of(spec) := object_or_empty(object.get(object_or_empty(object.get(spec, "project", {})), "sandbox", {}))

old_sandbox := sandbox_of(old)

new_sandbox := sandbox_of(new)

sandbox_rank := {"off": 0, "auto": 1, "required": 2}

# project.sandbox.mode: ranked off < auto < required; an unknown mode
# cannot be placed (loosens).
changes contains change("project.sandbox.mode", om, nm, " (how loopx run confines the agent command)", direction(sandbox_mode_tightens(om, nm))) if {
	om := object.get(old_sandbox, "mode", "auto")
	nm := object.get(new_sandbox, "mode", "auto")
	om != nm
}

sandbox_mode_tightens(om, nm) if {
	sandbox_rank[nm] >= sandbox_rank[om]
} else := false

# project.sandbox.writable: tightens when every new path was in the
# adopted list, compared exactly.
changes contains change("project.sandbox.writable", ow, nw, " (paths outside the work tree the agent command may write)", direction(sandbox_writable_tightens(ow, nw))) if {
	ow := object.get(old_sandbox, "writable", [])
	nw := object.get(new_sandbox, "writable", [])
	ow != nw
}

sandbox_writable_tightens(ow, nw) if {
	is_array(ow)
	is_array(nw)
	every p in nw {
		p in ow
	}
} else := false

changes contains change($"project.sandbox.{k}", ov, nv, " (a field loopx does not know)", "loosens") if {
	some k in keys(old_sandbox, new_sandbox)
	not k in {"mode", "writable"}
	ov := object.get(old_sandbox, k, null)
	nv := object.get(new_sandbox, k, null)
	ov != nv
}
