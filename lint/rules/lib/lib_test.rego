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
