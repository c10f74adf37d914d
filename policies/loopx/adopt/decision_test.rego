package loopx.adopt_test

import data.loopx.adopt

base := {
	"project": {"name": "p", "policy_deadline": "1s"},
	"agents": {"a1": {"host": "shell", "role": "executor"}},
	"goals": {"g1": {
		"objective": "Ship it",
		"agents": ["a1"],
		"quota": {"window": "24h", "window_seconds": 86400, "rounds": 3, "compute": 1, "min_interval": "0s", "min_interval_seconds": 0},
		"stall": {"max_no_progress": 3},
		"gates": {"merge": {"question": "Merge now?", "options": ["approve", "reject"]}},
		"scope": {
			"write": ["api/**"], "deny": ["loopx/**"],
			"commands": {"allow": [], "ask": ["git push*"], "deny": [], "opaque": "ask"},
			"grant": {"commands": ["go test*"], "tools": [], "paths": []},
		},
		"evidence": {"stale_after": "72h", "stale_after_seconds": 259200},
	}},
}

goal(patch) := json.patch(base, [{"op": "add", "path": p, "value": v} | some p, v in patch])

refs(d) := {r.ref | some r in d.loosens}

test_unchanged_adopts if adopt.decision == {"verdict": "adopt", "loosens": []} with input as {"old": base, "new": base}

test_tightening_adopts if {
	cases := [
		{"/goals/g1/quota/rounds": 2},
		{"/goals/g1/quota/compute": 0.5},
		{"/goals/g1/quota/min_interval_seconds": 60, "/goals/g1/quota/min_interval": "1m"},
		{"/goals/g1/gates/deploy": {"question": "Deploy now?"}},
		{"/goals/g1/scope/write": []},
		{"/goals/g1/scope/deny": ["loopx/**", ".env"]},
		{"/goals/g1/scope/commands/ask": [], "/goals/g1/scope/commands/deny": ["git push*"]},
		{"/goals/g1/scope/commands/opaque": "deny"},
		{"/goals/g1/scope/grant/commands": []},
		{"/goals/g1/stall/max_no_progress": 1},
		{"/goals/g1/agents": []},
		{"/goals/g1/evidence/stale_after_seconds": 3600},
		{"/agents": {}},
		{"/goals": {}},
	]
	every c in cases {
		adopt.decision.verdict == "adopt" with input as {"old": base, "new": goal(c)}
	}
}

test_loosening_is_pending if {
	cases := [
		[{"/goals/g1/quota/rounds": 4}, "goals.g1.quota"],
		[{"/goals/g1/quota/compute": 2}, "goals.g1.quota"],
		[{"/goals/g1/quota/window_seconds": 3600}, "goals.g1.quota"],
		[{"/goals/g1/gates": {}}, "goals.g1.gates"],
		[{"/goals/g1/gates/merge/options": ["approve"]}, "goals.g1.gates"],
		[{"/goals/g1/scope/write": ["**"]}, "goals.g1.scope"],
		[{"/goals/g1/scope/deny": []}, "goals.g1.scope"],
		[{"/goals/g1/scope/commands/ask": []}, "goals.g1.scope"],
		[{"/goals/g1/scope/commands/allow": ["rm*"]}, "goals.g1.scope"],
		[{"/goals/g1/scope/grant/commands": ["go test*", "make*"]}, "goals.g1.scope"],
		[{"/goals/g1/stall/max_no_progress": 9}, "goals.g1.stall"],
		[{"/goals/g1/agents": ["a1", "a2"]}, "goals.g1.agents"],
		[{"/goals/g1/objective": "Something else"}, "goals.g1.objective"],
		[{"/goals/g2": {}}, "goals.g2"],
		[{"/agents/a2": {"host": "codex"}}, "agents.a2"],
		[{"/agents/a1/role": "reviewer"}, "agents.a1"],
		[{"/project/policy_deadline": "10s"}, "project"],
		[{"/store": {"retention": "1y"}}, "store"],
	]
	every c in cases {
		d := adopt.decision with input as {"old": base, "new": goal(c[0])}
		d.verdict == "pending"
		c[1] in refs(d)
	}
}

test_opaque_deny_to_ask_is_pending if {
	old := goal({"/goals/g1/scope/commands/opaque": "deny"})
	adopt.decision.verdict == "pending" with input as {"old": old, "new": base}
}

test_quota_limit_removed_is_pending if {
	new := json.remove(base, ["/goals/g1/quota/rounds"])
	d := adopt.decision with input as {"old": base, "new": new}
	d.loosens[0].message == "quota.rounds raised or removed"
}

test_quota_limit_added_adopts if {
	new := goal({"/goals/g1/quota/tokens": 1000})
	adopt.decision.verdict == "adopt" with input as {"old": base, "new": new}
}

test_mixed_change_lists_only_what_loosens if {
	d := adopt.decision with input as {"old": base, "new": goal({"/goals/g1/quota/rounds": 1, "/goals/g1/gates": {}})}
	d.verdict == "pending"
	[r.message | some r in d.loosens] == ["gate merge removed or changed"]
}

test_not_comparable_is_pending if {
	adopt.decision.verdict == "pending" with input as {"old": base, "new": "x"}
	adopt.decision.verdict == "pending" with input as {}
}

test_audit_retain_shorter_or_added_loosens if {
	with_retain := json.patch(base, [{"op": "add", "path": "/audit", "value": {"retain": "90d", "retain_seconds": 7776000}}])
	cases := [
		[base, {"retain": "90d", "retain_seconds": 7776000}],
		[with_retain, {"retain": "30d", "retain_seconds": 2592000}],
	]
	every c in cases {
		new := json.patch(base, [{"op": "add", "path": "/audit", "value": c[1]}])
		d := adopt.decision with input as {"old": c[0], "new": new}
		d.verdict == "pending"
		refs(d) == {"audit.retain"}
	}
}

test_audit_retain_longer_or_removed_tightens if {
	with_retain := json.patch(base, [{"op": "add", "path": "/audit", "value": {"retain": "90d", "retain_seconds": 7776000}}])
	cases := [
		{"retain": "2160h", "retain_seconds": 7776000},
		{"retain": "180d", "retain_seconds": 15552000},
		{},
	]
	every c in cases {
		new := json.patch(base, [{"op": "add", "path": "/audit", "value": c}])
		adopt.decision.verdict == "adopt" with input as {"old": with_retain, "new": new}
	}
	adopt.decision.verdict == "adopt" with input as {"old": base, "new": json.patch(base, [{"op": "add", "path": "/audit", "value": {}}])}
}
