package loopx.run_test

test_user_deny_beats_run if {
	d := decide_user(base, spec, {"should_run": {"deny": {"no rounds on Fridays", {"code": "freeze", "message": "release freeze"}}}})
	d.verdict == "deny"
	d.allow == false
	{r.code | some r in d.reasons} == {"user_policy", "freeze"}
	{r.rule | some r in d.reasons} == {"data.loopx.user.should_run.deny"}
	"no rounds on Fridays" in {r.message | some r in d.reasons}
}

test_user_deny_after_builtin_skip if {
	d := decide_user(state({"quota": {"rounds": 2}}), spec, {"should_run": {"deny": {"no"}}})
	codes(d) == ["quota_exhausted"]
}

test_warn_does_not_change_verdict if {
	w := {"evidence is stale", {"code": "old_pr", "message": "PR #4 is 9 days old"}}
	d := decide_user(base, spec, {"should_run": {"warn": w}})
	d.verdict == "run"
	codes(d) == ["todo_selected", "user_warning", "old_pr"]
	d.reasons[1] == {"code": "user_warning", "message": "evidence is stale", "rule": "data.loopx.user.should_run.warn", "ref": ""}
	d2 := decide_user(state({"quota": {"rounds": 2}}), spec, {"should_run": {"warn": w}})
	d2.verdict == "skip"
	count(d2.reasons) == 3
}

test_odd_user_entries_still_deny if {
	d := decide_user(base, spec, {"should_run": {"deny": {42, {"message": "no code"}}}})
	d.verdict == "deny"
	{r.code | some r in d.reasons} == {"user_policy"}
}
