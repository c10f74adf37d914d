package loopx.adopt_test

test_audit_retain_shorter_or_added_loosens if {
	with_retain := patched({"/audit": {"retain": "90d", "retain_seconds": 7776000}})
	cases := [
		[base, {"retain": "90d", "retain_seconds": 7776000}],
		[with_retain, {"retain": "30d", "retain_seconds": 2592000}],
	]
	every c in cases {
		d := decide(c[0], patched({"/audit": c[1]}))
		d.verdict == "pending"
		refs(d) == {"audit.retain"}
	}
}

test_audit_retain_longer_or_removed_tightens if {
	with_retain := patched({"/audit": {"retain": "90d", "retain_seconds": 7776000}})
	cases := [
		{"retain": "2160h", "retain_seconds": 7776000},
		{"retain": "180d", "retain_seconds": 15552000},
		{},
	]
	every c in cases {
		decide(with_retain, patched({"/audit": c})).verdict == "adopt"
	}
	decide(removed(["/audit"]), base).verdict == "adopt"
}
