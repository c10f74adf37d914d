package loopx.lint.rules.unknown_agent_test

import data.loopx.lint.rules.unknown_agent as rule

spec := {
	"agents": {"codex": {"host": "codex"}, "claude": {"host": "claude-code"}},
	"goals": {"g1": {
		"agents": ["codex", "cladue"],
		"gates": {"merge": {"question": "Merge it now please?", "answerers": ["human", "agent:claud"], "agents": ["codx"]}},
	}},
}

# A goal's agents list is vet's (specs, unknown_agent): not linted again.
test_gate_answerers_and_agents_fail if {
	vs := rule.violations with input as {"spec": spec}
	{[v.ref, v.location.path] | some v in vs} == {
		["goals.g1.gates.merge.answerers", ["goals", "g1", "gates", "merge", "answerers", "1"]],
		["goals.g1.gates.merge.agents", ["goals", "g1", "gates", "merge", "agents", "0"]],
	}
	some v in vs
	v.message == `gate merge of goal g1 names agent "claud" in answerers, which is neither declared in agents nor registered (known: claude, codex)`
}

test_registered_agents_count_as_known if {
	inp := {"spec": {"goals": {"g1": {"gates": {"m": {"agents": ["bot"]}}}}}, "state": {"agents": [{"id": "bot"}]}}
	count(rule.violations) == 0 with input as inp
}

test_declared_agents_pass if {
	ok := json.patch(spec, [
		{"op": "replace", "path": "/goals/g1/agents/1", "value": "claude"},
		{"op": "replace", "path": "/goals/g1/gates/merge/answerers/1", "value": "agent:claude"},
		{"op": "replace", "path": "/goals/g1/gates/merge/agents/0", "value": "codex"},
	])
	count(rule.violations) == 0 with input as {"spec": ok}
}

test_no_agents_declared_says_so if {
	vs := rule.violations with input as {"spec": {"goals": {"g1": {"gates": {"m": {"answerers": ["agent:a1"]}}}}}}
	some v in vs
	endswith(v.message, "(no agent is declared)")
}
