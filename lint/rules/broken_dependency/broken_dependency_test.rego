package loopx.lint.rules.broken_dependency_test

import data.loopx.lint.rules.broken_dependency as rule

todo(id, status, deps) := {"id": id, "goal": "g1", "status": status, "depends_on": deps}

test_missing_and_cancelled_dependencies_fail if {
	vs := rule.violations with input as {"state": {"todos": [
		todo("t-1", "open", ["t-2", "t-9"]),
		todo("t-2", "cancelled", []),
	]}}
	{v.message | some v in vs} == {
		"todo t-1 of goal g1 depends on t-2, which was cancelled: it can never run; remove the dependency or cancel the todo",
		"todo t-1 of goal g1 depends on t-9, which does not exist: it can never run; remove the dependency or cancel the todo",
	}
}

test_settled_todos_and_live_dependencies_pass if {
	count(rule.violations) == 0 with input as {"state": {"todos": [
		todo("t-1", "open", ["t-2", "t-3"]),
		todo("t-2", "done", []),
		todo("t-3", "open", []),
		todo("t-4", "cancelled", ["t-9"]),
		todo("t-5", "done", ["t-9"]),
	]}}
}
