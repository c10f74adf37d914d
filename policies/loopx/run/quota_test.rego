package loopx.run_test

test_rounds_exhausted_skips_until_reset if {
	d := decide(state({"quota": {"rounds": 2, "resets_at": "2026-11-30T09:12:00Z"}}))
	d.verdict == "skip"
	d.reasons == [{
		"code": "quota_exhausted", "message": "2/2 rounds used in 24h window; resets 2026-11-30T09:12:00Z",
		"rule": "data.loopx.run.quota", "ref": "goals.g1.quota.rounds",
	}]
	d.next_check_at == "2026-11-30T09:12:00Z"
	d.charge == false
}

test_every_exhausted_dimension_is_a_reason if {
	d := decide(state({"quota": {"rounds": 3, "tokens": 1200, "cost_usd": 5.5}}))
	[r.ref | some r in d.reasons] == ["goals.g1.quota.rounds", "goals.g1.quota.tokens", "goals.g1.quota.cost_usd"]
	d.reasons[2].message == "5.5/5 USD used in 24h window"
	d.next_check_at == null
}

test_absent_limit_is_unlimited if {
	decide(state({"quota": {"rounds": 99}})).verdict == "skip"
	s := json.remove(spec, ["goals/g1/quota/rounds"])
	decide_spec(state({"quota": {"rounds": 99}}), s).verdict == "run"
}

test_compute_share_exhausted if {
	d := decide_spec(
		state({"quota": {"compute_seconds": 43200, "compute_limit_seconds": 43200}}),
		goal1({"quota": {"compute": 0.5}}),
	)
	d.verdict == "skip"
	d.reasons[0].ref == "goals.g1.quota.compute"
	d.reasons[0].message == "43200/43200 compute seconds used in 24h window (compute 0.5)"
}

test_full_compute_share_is_not_a_limit if {
	decide(state({"quota": {"compute_seconds": 90000, "compute_limit_seconds": 86400}})).verdict == "run"
}

test_min_interval_skips_until_next_round if {
	d := decide(state({"quota": {
		"last_round_at": "2026-11-29T09:55:00Z", "next_round_at": "2026-11-29T10:05:00Z",
		"min_interval_elapsed": false,
	}}))
	d.verdict == "skip"
	codes(d) == ["min_interval"]
	d.reasons[0].ref == "goals.g1.quota.min_interval"
	d.reasons[0].message == "min_interval 10m not elapsed since the last round at 2026-11-29T09:55:00Z; next round at 2026-11-29T10:05:00Z"
	d.next_check_at == "2026-11-29T10:05:00Z"
}

test_min_interval_outranks_no_todo if {
	codes(decide(state({"todos": [], "quota": {"min_interval_elapsed": false}}))) == ["min_interval"]
}

test_sparse_quota_state_still_skips if {
	d := decide(json.patch(base, [{"op": "replace", "path": "/state/quota", "value": {"rounds": 2}}]))
	codes(d) == ["quota_exhausted"]
	d.next_check_at == null
	d2 := decide(json.patch(base, [{"op": "replace", "path": "/state/quota", "value": {"min_interval_elapsed": false}}]))
	codes(d2) == ["min_interval"]
	d2.next_check_at == null
}

test_window_without_name_is_rolling if {
	d := decide_spec(state({"quota": {"rounds": 2}}), json.remove(spec, ["goals/g1/quota/window"]))
	d.reasons[0].message == "2/2 rounds used in rolling window"
}
