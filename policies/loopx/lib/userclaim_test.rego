package loopx.lib_test

import data.loopx.lib

claim_todo := {"id": "t-1", "title": "Deploy v2", "kind": "task", "status": "open"}

test_user_claim_deny_is_the_user_claim_policy_s if {
	deny := {{"code": "freeze", "message": "no deploys during the freeze"}}
	lib.user_claim_deny(claim_todo) == deny with input as {"goal": "g1", "agent": "a1"}
		with data.loopx.user.claim.deny as deny
}

test_user_claim_deny_without_a_user_claim_policy_is_undefined if {
	not lib.user_claim_deny(claim_todo) with input as {"goal": "g1", "agent": "a1"}
		with data.loopx.user as {}
}
