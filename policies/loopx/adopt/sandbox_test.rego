package loopx.adopt_test

sandbox_spec(sandbox) := {"project": {"name": "p", "policy_deadline": "1s", "sandbox": sandbox}, "audit": {}, "agents": {}, "goals": {}}

sandbox_decide(o, n) := decide(sandbox_spec(o), sandbox_spec(n))

test_less_confinement_loosens if {
	every pair in [
		[{"mode": "required"}, {"mode": "auto"}],
		[{"mode": "auto"}, {"mode": "off"}],
		[{"mode": "required"}, {"mode": "off"}],
		[{"mode": "auto"}, {"mode": "sometimes"}],
	] {
		d := sandbox_decide(pair[0], pair[1])
		d.verdict == "pending"
		refs(d) == {"project.sandbox.mode"}
	}
}

test_more_confinement_tightens if {
	every pair in [
		[{"mode": "off"}, {"mode": "auto"}],
		[{"mode": "auto"}, {"mode": "required"}],
		[{}, {"mode": "required"}],
	] {
		sandbox_decide(pair[0], pair[1]).verdict == "adopt"
	}
}

test_absent_mode_is_auto if {
	sandbox_decide({}, {"mode": "auto"}) == {"verdict": "adopt", "loosens": [], "tightens": []}
	sandbox_decide({}, {"mode": "off"}).verdict == "pending"
}

test_more_writable_paths_loosen if {
	d := sandbox_decide({"mode": "auto", "writable": ["~/.m2/**"]}, {"mode": "auto", "writable": ["~/.m2/**", "/opt/cache/**"]})
	d.verdict == "pending"
	refs(d) == {"project.sandbox.writable"}
	sandbox_decide({"writable": ["~/.m2/**"]}, {"writable": ["~/.m2/*"]}).verdict == "pending"
}

test_fewer_writable_paths_tighten if {
	sandbox_decide({"writable": ["~/.m2/**", "/opt/cache/**"]}, {"writable": ["~/.m2/**"]}).verdict == "adopt"
	sandbox_decide({"writable": ["~/.m2/**"]}, {"writable": []}).verdict == "adopt"
}

test_unknown_sandbox_field_loosens if {
	refs(sandbox_decide({}, {"network": "off"})) == {"project.sandbox.network"}
}
