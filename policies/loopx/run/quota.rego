package loopx.run

import data.loopx.lib

# METADATA
# description: Step 6, every exhausted quota dimension of the rolling window.
quota := array.concat(
	[lib.reason("quota_exhausted", $"{used}/{limit} {label} used in {window} window{note}{resets}", "data.loopx.run.quota", $"goals.{goal_id}.quota.{dim}") |
		some [dim, label] in [["rounds", "rounds"], ["tokens", "tokens"], ["cost_usd", "USD"]]
		limit := quota_spec[dim]
		is_number(limit)
		used := object.get(quota_state, dim, 0) + in_flight(dim)
		used >= limit
		note := in_flight_note(dim)
	],
	[lib.reason("quota_exhausted", $"{used}/{limit} compute seconds used in {window} window (compute {compute}){resets}", "data.loopx.run.quota", $"goals.{goal_id}.quota.compute") |
		compute := object.get(quota_spec, "compute", 1)
		is_number(compute)
		compute < 1
		used := object.get(quota_state, "compute_seconds", 0)
		limit := object.get(quota_state, "compute_limit_seconds", 0)
		used >= limit
	],
)

default window := "rolling"

window := quota_spec.window if {
	is_string(quota_spec.window)
	quota_spec.window != ""
}

default resets := ""

resets := $"; resets {t}" if {
	t := quota_state.resets_at
	lib.nonempty(t) != null
}

# METADATA
# description: Step 7, quota.min_interval has not elapsed since the last round.
min_interval := [lib.reason("min_interval", msg, "data.loopx.run.min_interval", $"goals.{goal_id}.quota.min_interval") |
	quota_state.min_interval_elapsed == false
	msg := $"min_interval {object.get(quota_spec, "min_interval", "")} not elapsed since the last round at {object.get(quota_state, "last_round_at", "")}; next round at {object.get(quota_state, "next_round_at", "")}"
]

# Open rounds holding a live lease count against the rounds quota, so that
# agents starting at the same time cannot overrun it.
in_flight("rounds") := n if {
	n := quota_state.rounds_in_flight
	is_number(n)
} else := 0

in_flight(dim) := 0 if dim != "rounds"

in_flight_note(dim) := $" ({n} in flight)" if {
	n := in_flight(dim)
	n > 0
} else := ""
