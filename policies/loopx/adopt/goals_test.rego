package loopx.adopt_test

test_quota_limit_removed_is_pending if {
	d := decide(base, removed(["/goals/g1/quota/rounds"]))
	[r.message | some r in d.loosens] == ["goals.g1.quota.rounds: 3 → absent (unlimited): loosens"]
}

test_duration_text_counts_through_seconds if {
	# "24h" written as "1d": the same window
	decide(base, patched({"/goals/g1/quota/window": "1d"})) == {"verdict": "adopt", "loosens": [], "tightens": []}

	# without the seconds, a changed text loosens
	o := removed(["/goals/g1/quota/window_seconds"])
	decide(o, json.patch(o, [{"op": "add", "path": "/goals/g1/quota/window", "value": "1d"}])).verdict == "pending"
}
