package loopx.status_test

import data.loopx.lib
import data.loopx.status

todo(id, title, patch) := object.union(
	{
		"id": id, "title": title, "kind": "task", "status": "open", "priority": 2,
		"created_at": "2026-11-28T10:00:00.000000000Z", "deps_open": [], "lease": null, "due": false,
		"next_due_at": "", "labels": [], "scope_conflict": "",
	},
	patch,
)

# freeze stands for a user claim policy: nothing titled "Deploy…" is claimed.
freeze(t) := [{"code": "freeze", "message": "no deploys"} | startswith(t.title, "Deploy")]

test_denied_is_what_the_user_claim_policy_denies if {
	todos := [
		todo("t-1", "Deploy v2", {}),
		todo("t-2", "Write the guide", {}),
		todo("t-3", "Deploy v1", {"status": "done"}),
		todo("t-4", "Deploy v3", {"kind": "action"}),
	]
	d := status.denied with input as {"goal": "g1", "agent": "", "state": {"todos": todos}}
		with data.loopx.user as {} with lib.user_claim_deny as freeze
	d == {"t-1"}
}

test_nothing_denied_without_a_user_claim_policy if {
	d := status.denied with input as {"goal": "g1", "agent": "", "state": {"todos": [todo("t-1", "Deploy v2", {})]}}
		with data.loopx.user as {}
	d == set()
}
