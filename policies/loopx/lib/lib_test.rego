package loopx.lib_test

import data.loopx.lib

test_earliest_orders_instants_not_strings if {
	lib.earliest(["2026-11-29T10:00:00Z", "2026-11-29T09:59:59.5Z", "", 3, "soon"]) == "2026-11-29T09:59:59.5Z"
	lib.earliest([]) == null
	lib.earliest(null) == null
}

test_nonempty if {
	lib.nonempty("x") == "x"
	lib.nonempty("") == null
	lib.nonempty(7) == null
}

test_counted if {
	lib.counted(1, "todo") == "1 todo"
	lib.counted(3, "todo") == "3 todos"
}

test_duration_text_as_go_writes_it if {
	lib.duration_text(30) == "30s"
	lib.duration_text(60) == "1m0s"
	lib.duration_text(900) == "15m0s"
	lib.duration_text(3600) == "1h0m0s"
	lib.duration_text(5430) == "1h30m30s"
	lib.duration_text(90000) == "25h0m0s"
	lib.duration_text(0) == "0s"
	lib.duration_text("x") == "0s"
}
