package loopx.lint.rules.vague_gate_question_test

import data.loopx.lint.rules.vague_gate_question as rule

spec(q) := {"goals": {"g1": {"gates": {"merge": q}}}}

# questions is input.questions as the engine computes it with the schema's #Question.
questions := {"ok?": false, "Merge the v2 branch now": false, "Merge the v2 branch into main?": true, "deploy?": false, "Deploy the release to staging now?": true}

test_vague_spec_question_fails if {
	vs := rule.violations with input as {"questions": questions, "spec": spec({"question": "ok?"})}
	count(vs) == 1
	some v in vs
	v.rule == "vague-gate-question"
	v.severity == "error"
	v.ref == "goals.g1.gates.merge.question"
	v.location == {"path": ["goals", "g1", "gates", "merge", "question"]}
	contains(v.message, `asks "ok?", which is not a concrete question`)
}

test_question_without_mark_fails if {
	count(rule.violations) == 1 with input as {"questions": questions, "spec": spec({"question": "Merge the v2 branch now"})}
}

test_missing_question_is_reported_not_undefined if {
	vs := rule.violations with input as {"questions": questions, "spec": spec({"options": ["approve", "reject"]})}
	some v in vs
	contains(v.message, "gate merge of goal g1 has no question")
}

test_concrete_question_passes if {
	count(rule.violations) == 0 with input as {"questions": questions, "spec": spec({"question": "Merge the v2 branch into main?"})}
}

test_open_runtime_gate_is_checked if {
	inp := {"questions": questions, "state": {"gates": [
		{"id": "g-1", "goal": "g1", "status": "open", "question": "deploy?"},
		{"id": "g-2", "goal": "g1", "status": "approve", "question": "ok?"},
		{"id": "g-3", "goal": "g1", "status": "open", "question": "Deploy the release to staging now?"},
	]}}
	vs := rule.violations with input as inp
	[v.ref | some v in vs] == ["gate g-1"]
}

test_odd_shapes_stay_quiet if {
	count(rule.violations) == 0 with input as {"spec": {"goals": {"g1": {"gates": null}, "g2": 3}}, "state": {"gates": [1, null]}}
}

test_unclassified_question_is_not_concrete if {
	# a question the engine did not classify with the schema fails closed
	count(rule.violations) == 1 with input as {"spec": spec({"question": "Merge the v2 branch into main?"})}
}
