package loopx.adopt_sandbox_test

import data.loopx.adopt

spec(sandbox) := {"project": {"name": "p", "policy_deadline": "1s", "sandbox": sandbox}, "audit": {}, "agents": {}, "goals": {}}

decide(o, n) := d if {
	d := adopt.decision with input as {"old": spec(o), "new": spec(n)}
}

refs(d) := {r.ref | some r in d.loosens}

test_less_confinement_loosens if {
	every pair in [
		[{"mode": "required"}, {"mode": "auto"}],
		[{"mode": "auto"}, {"mode": "off"}],
		[{"mode": "required"}, {"mode": "off"}],
		[{"mode": "auto"}, {"mode": "sometimes"}],
	] {
		d := decide(pair[0], pair[1])
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
		decide(pair[0], pair[1]).verdict == "adopt"
	}
}

test_absent_mode_is_auto if {
	decide({}, {"mode": "auto"}) == {"verdict": "adopt", "loosens": [], "tightens": []}
	decide({}, {"mode": "off"}).verdict == "pending"
}

test_more_writable_paths_loosen if {
	d := decide({"mode": "auto", "writable": ["~/.m2/**"]}, {"mode": "auto", "writable": ["~/.m2/**", "/opt/cache/**"]})
	d.verdict == "pending"
	refs(d) == {"project.sandbox.writable"}
	decide({"writable": ["~/.m2/**"]}, {"writable": ["~/.m2/*"]}).verdict == "pending"
}

test_fewer_writable_paths_tighten if {
	decide({"writable": ["~/.m2/**", "/opt/cache/**"]}, {"writable": ["~/.m2/**"]}).verdict == "adopt"
	decide({"writable": ["~/.m2/**"]}, {"writable": []}).verdict == "adopt"
}

test_unknown_sandbox_field_loosens if {
	refs(decide({}, {"network": "off"})) == {"project.sandbox.network"}
}
