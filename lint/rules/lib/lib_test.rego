package loopx.lint.lib_test

import data.loopx.lint.lib

test_shapes_default_when_missing if {
	lib.obj(null) == {}
	lib.arr("x") == []
	lib.strs(["a", 1, "b"]) == ["a", "b"]
	count(lib.state("todos")) == 0 with input as {"state": {"todos": "nope"}}
	lib.goals == {} with input as {"spec": {"goals": null}}
}

test_instant_and_duration if {
	lib.instant("2026-11-29T10:00:00Z") == 1795946400000000000
	not lib.instant("yesterday")
	lib.duration(90) == "90s"
	lib.duration(600) == "10m"
	lib.duration(36 * 3600) == "36h"
	lib.duration((4 * 86400) + 5) == "4d"
}

# chain is a rego.metadata.chain() as a rule of a lint rule package sees it.
chain := [
	{"path": ["data", "loopx", "lint", "rules", "x", "violations"], "annotations": {"scope": "rule", "description": "d"}},
	{"path": ["data", "loopx", "lint", "rules", "x"], "annotations": {"scope": "package", "title": "some-rule", "custom": {"severity": "warning"}}},
]

test_violation_takes_id_and_severity_from_the_package_metadata if {
	lib.violation(chain, "m", "r", lib.state_at) == {
		"rule": "some-rule", "severity": "warning", "message": "m", "ref": "r",
		"location": {"file": ".loopx/state.db"},
	}
}

test_violation_without_package_metadata_is_undefined if {
	not lib.violation([chain[0]], "m", "r", lib.state_at)
}
