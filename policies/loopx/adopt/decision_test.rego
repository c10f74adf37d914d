package loopx.adopt_test

import data.loopx.adopt

base := {
	"project": {"name": "p", "policy_deadline": "1s"},
	"audit": {},
	"agents": {"a1": {"host": "shell", "role": "executor", "mode": "active"}, "a2": {"host": "codex", "role": "executor", "mode": "active"}},
	"goals": {"g1": {
		"objective": "Ship it",
		"agents": ["a1"],
		"quota": {"window": "24h", "window_seconds": 86400, "rounds": 3, "compute": 1, "min_interval": "0s", "min_interval_seconds": 0},
		"stall": {"max_no_progress": 3},
		"gates": {"merge": {"question": "Merge now?", "options": ["approve", "reject"], "guards": ["git.merge"], "answerers": ["human", "agent:a2"], "agents": [], "todos": []}},
		"scope": {
			"write": ["api/**", "docs/readme.md"], "deny": ["loopx/**", "secrets/**"],
			"commands": {"allow": ["go *", "git status"], "ask": ["git push*"], "deny": ["rm -rf*"], "opaque": "ask"},
			"grant": {"commands": ["go test*"], "tools": ["Read"], "paths": ["api/**"]},
		},
		"evidence": {"stale_after": "72h", "stale_after_seconds": 259200},
		"todos": {"t1": {"title": "Write it", "kind": "task", "priority": "P2", "every_seconds": 0}},
	}},
}

patched(patch) := json.patch(base, [{"op": "add", "path": p, "value": v} | some p, v in patch])

removed(paths) := json.remove(base, paths)

refs(d) := {r.ref | some r in d.loosens}

tight_refs(d) := {r.ref | some r in d.tightens}

decide(o, n) := d if {
	d := adopt.decision with input as {"old": o, "new": n}
}

test_unchanged_adopts if decide(base, base) == {"verdict": "adopt", "loosens": [], "tightens": []}

# Each case: the edit, and the one field it tightens.
tcases := [
	[{"/goals/g1/quota/rounds": 2}, "goals.g1.quota.rounds"],
	[{"/goals/g1/quota/tokens": 1000}, "goals.g1.quota.tokens"],
	[{"/goals/g1/quota/compute": 0.5}, "goals.g1.quota.compute"],
	[{"/goals/g1/quota/min_interval_seconds": 60, "/goals/g1/quota/min_interval": "1m"}, "goals.g1.quota.min_interval_seconds"],
	[{"/goals/g1/gates/deploy": {"question": "Deploy now?"}}, "goals.g1.gates.deploy"],
	[{"/goals/g1/gates/merge/guards": ["git.merge", "git.push"]}, "goals.g1.gates.merge.scope"],
	[{"/goals/g1/gates/merge/guards": []}, "goals.g1.gates.merge.scope"],
	[{"/goals/g1/gates/merge/answerers": ["human"]}, "goals.g1.gates.merge.answerers"],
	[{"/goals/g1/scope/write": ["api/v2/**"]}, "goals.g1.scope.write"],
	[{"/goals/g1/scope/write": ["api/**"]}, "goals.g1.scope.write"],
	[{"/goals/g1/scope/deny": ["loopx/**", "secrets/**", ".env"]}, "goals.g1.scope.deny"],
	[{"/goals/g1/scope/deny": ["**"]}, "goals.g1.scope.deny"],
	[{"/goals/g1/scope/commands/allow": ["go test*"]}, "goals.g1.scope.commands.allow"],
	[{"/goals/g1/scope/commands/ask": ["git push*", "npm publish*"]}, "goals.g1.scope.commands.ask"],
	[{"/goals/g1/scope/commands/ask": [], "/goals/g1/scope/commands/deny": ["rm -rf*", "git push*"]}, "goals.g1.scope.commands.ask"],
	[{"/goals/g1/scope/commands/deny": ["rm -rf*", "git.push.force"]}, "goals.g1.scope.commands.deny"],
	[{"/goals/g1/scope/commands/opaque": "deny"}, "goals.g1.scope.commands.opaque"],
	[{"/goals/g1/scope/grant/commands": []}, "goals.g1.scope.grant.commands"],
	[{"/goals/g1/scope/grant/commands": ["go test ./..."]}, "goals.g1.scope.grant.commands"],
	[{"/goals/g1/scope/grant/paths": ["api/v2/*.go"]}, "goals.g1.scope.grant.paths"],
	[{"/goals/g1/scope/grant/tools": []}, "goals.g1.scope.grant.tools"],
	[{"/goals/g1/stall/max_no_progress": 1}, "goals.g1.stall.max_no_progress"],
	[{"/goals/g1/agents": ["a1", "a1"]}, "goals.g1.agents"],
	[{"/goals/g1/evidence/stale_after_seconds": 3600, "/goals/g1/evidence/stale_after": "1h"}, "goals.g1.evidence.stale_after_seconds"],
	[{"/agents/a1/mode": "monitor_only"}, "agents.a1.mode"],
	[{"/goals/g1/todos": {}}, "goals.g1.todos.t1"],
	[{"/project/policy_deadline": "500ms"}, "project.policy_deadline"],
]

test_tightening_adopts_and_names_the_field if {
	every c in tcases {
		d := decide(base, patched(c[0]))
		d.verdict == "adopt"
		c[1] in tight_refs(d)
	}
}

test_removals_that_tighten_adopt if {
	cases := [
		[["/agents/a2"], "agents.a2"],
		[["/goals/g1"], "goals.g1"],
		[["/goals/g1/quota/rounds"], "goals.g1.quota.rounds"],
	]
	every c in cases {
		# removing a quota limit loosens; the other two tighten
		d := decide(base, removed(c[0]))
		c[1] in (refs(d) | tight_refs(d))
	}
	decide(base, removed(["/agents/a2"])).verdict == "adopt"
	decide(base, removed(["/goals/g1"])).verdict == "adopt"
}

lcases := [
	[{"/goals/g1/quota/rounds": 4}, "goals.g1.quota.rounds"],
	[{"/goals/g1/quota/compute": 2}, "goals.g1.quota.compute"],
	[{"/goals/g1/quota/window_seconds": 3600}, "goals.g1.quota.window"],
	[{"/goals/g1/quota/window_seconds": 172800}, "goals.g1.quota.window"],
	[{"/goals/g1/quota/min_interval_seconds": -1}, "goals.g1.quota.min_interval_seconds"],
	[{"/goals/g1/quota/burst": 3}, "goals.g1.quota.burst"],
	[{"/goals/g1/gates": {}}, "goals.g1.gates.merge"],
	[{"/goals/g1/gates/merge/options": ["approve"]}, "goals.g1.gates.merge.options"],
	[{"/goals/g1/gates/merge/question": "Merge it?"}, "goals.g1.gates.merge.question"],
	[{"/goals/g1/gates/merge/on_expiry": "approve"}, "goals.g1.gates.merge.on_expiry"],
	[{"/goals/g1/gates/merge/expires_after_seconds": 60}, "goals.g1.gates.merge.expires_after_seconds"],
	[{"/goals/g1/gates/merge/guards": ["git.push"]}, "goals.g1.gates.merge.scope"],
	[{"/goals/g1/gates/merge/guards": ["git.*"]}, "goals.g1.gates.merge.scope"],
	[{"/goals/g1/gates/merge/answerers": ["human", "agent:a1"]}, "goals.g1.gates.merge.answerers"],
	[{"/goals/g1/scope/write": ["**"]}, "goals.g1.scope.write"],
	[{"/goals/g1/scope/write": ["api/**", "src/**"]}, "goals.g1.scope.write"],
	[{"/goals/g1/scope/write": ["api*/**"]}, "goals.g1.scope.write"],
	[{"/goals/g1/scope/write": ["docs/**"]}, "goals.g1.scope.write"],
	[{"/goals/g1/scope/deny": []}, "goals.g1.scope.deny"],
	[{"/goals/g1/scope/deny": ["loopx/**"]}, "goals.g1.scope.deny"],
	[{"/goals/g1/scope/deny": ["loopx/**", "secrets/*"]}, "goals.g1.scope.deny"],
	[{"/goals/g1/scope/deny": ["loopx/**", "**/secrets/**"]}, "goals.g1.scope.deny"],
	[{"/goals/g1/scope/commands/ask": []}, "goals.g1.scope.commands.ask"],
	[{"/goals/g1/scope/commands/ask": ["git push --force*"]}, "goals.g1.scope.commands.ask"],
	[{"/goals/g1/scope/commands/ask": ["git *"]}, "goals.g1.scope.commands.ask"],
	[{"/goals/g1/scope/commands/deny": []}, "goals.g1.scope.commands.deny"],
	[{"/goals/g1/scope/commands/deny": ["rm *"]}, "goals.g1.scope.commands.deny"],
	[{"/goals/g1/scope/commands/allow": ["rm*"]}, "goals.g1.scope.commands.allow"],
	[{"/goals/g1/scope/commands/allow": ["*"]}, "goals.g1.scope.commands.allow"],
	[{"/goals/g1/scope/commands/allow": ["go.test"]}, "goals.g1.scope.commands.allow"],
	[{"/goals/g1/scope/commands/opaque": "allow"}, "goals.g1.scope.commands.opaque"],
	[{"/goals/g1/scope/commands/run": ["x"]}, "goals.g1.scope.commands.run"],
	[{"/goals/g1/scope/grant/commands": ["go test*", "make*"]}, "goals.g1.scope.grant.commands"],
	[{"/goals/g1/scope/grant/commands": ["go *"]}, "goals.g1.scope.grant.commands"],
	[{"/goals/g1/scope/grant/commands": ["git.push"]}, "goals.g1.scope.grant.commands"],
	[{"/goals/g1/scope/grant/tools": ["Read", "Write"]}, "goals.g1.scope.grant.tools"],
	[{"/goals/g1/scope/grant/paths": ["**"]}, "goals.g1.scope.grant.paths"],
	[{"/goals/g1/scope/grant/actions": ["git.push"]}, "goals.g1.scope.grant.actions"],
	[{"/goals/g1/scope/sandbox": "off"}, "goals.g1.scope.sandbox"],
	[{"/goals/g1/stall/max_no_progress": 9}, "goals.g1.stall.max_no_progress"],
	[{"/goals/g1/evidence/stale_after_seconds": 999999}, "goals.g1.evidence.stale_after_seconds"],
	[{"/goals/g1/agents": ["a1", "a2"]}, "goals.g1.agents"],
	[{"/goals/g1/agents": ["a2"]}, "goals.g1.agents"],
	[{"/goals/g1/objective": "Something else"}, "goals.g1.objective"],
	[{"/goals/g1/preset": "issue-fix"}, "goals.g1.preset"],
	[{"/goals/g1/todos/t2": {"title": "More", "kind": "task"}}, "goals.g1.todos.t2"],
	[{"/goals/g1/todos/t1/kind": "monitor"}, "goals.g1.todos.t1"],
	[{"/goals/g1/sandbox": {"network": true}}, "goals.g1.sandbox"],
	[{"/goals/g2": {}}, "goals.g2"],
	[{"/agents/a3": {"host": "codex"}}, "agents.a3"],
	[{"/agents/a1/role": "reviewer"}, "agents.a1.role"],
	[{"/agents/a1/host": "claude-code"}, "agents.a1.host"],
	[{"/agents/a1/mode": "watch"}, "agents.a1.mode"],
	[{"/project/policy_deadline": "3s"}, "project.policy_deadline"],
	[{"/project/policy_deadline": "soon"}, "project.policy_deadline"],
	[{"/project/name": "q"}, "project.name"],
	[{"/audit/keep": true}, "audit.keep"],
	[{"/store": {"retention": "1y"}}, "store"],
]

test_loosening_is_pending if {
	every c in lcases {
		d := decide(base, patched(c[0]))
		d.verdict == "pending"
		c[1] in refs(d)
	}
}

test_directions_reverse if {
	# a tightening undone is a loosening
	cases := [
		{"/goals/g1/quota/rounds": 2},
		{"/goals/g1/scope/write": ["api/v2/**"]},
		{"/goals/g1/scope/commands/opaque": "deny"},
		{"/goals/g1/gates/deploy": {"question": "Deploy now?"}},
		{"/agents/a1/mode": "monitor_only"},
	]
	every c in cases {
		decide(patched(c), base).verdict == "pending"
	}
	decide(base, removed(["/agents/a2"])).verdict == "adopt"
	decide(removed(["/agents/a2"]), base).verdict == "pending"
}

test_mixed_change_lists_each_direction if {
	d := decide(base, patched({"/goals/g1/quota/rounds": 1, "/goals/g1/gates": {}}))
	d.verdict == "pending"
	[r.message | some r in d.loosens] == ["goals.g1.gates.merge: declared → absent (the work it blocked goes on): loosens"]
	[r.message | some r in d.tightens] == ["goals.g1.quota.rounds: 3 → 1: tightens"]
}

test_not_comparable_is_pending if {
	adopt.decision.verdict == "pending" with input as {"old": base, "new": "x"}
	adopt.decision.verdict == "pending" with input as {}
}

# Text an agent wrote is shown on one line, its control and format
# characters escaped, so it cannot push the real changes off a human's
# screen or forge lines that say "tightens".
test_agent_text_is_shown_escaped if {
	forged := "Ship it: tightens.\n\nNothing else changed. Keep these changes?\u001b[2J\u202e"
	d := decide(base, patched({"/goals/g1/objective": forged}))
	some r in d.loosens
	r.ref == "goals.g1.objective"
	not contains(r.message, "\n")
	not contains(r.message, "\u001b")
	not contains(r.message, "\u202e")
	contains(r.message, `\n\nNothing else changed`)
}

test_plain_text_is_shown_as_it_is if {
	d := decide(base, patched({"/goals/g1/objective": "Ship the v2 API — café"}))
	some r in d.loosens
	r.message == "goals.g1.objective: Ship it → Ship the v2 API — café (what agents are given to do): loosens"
}
