# What a user claim policy says of a round start's claim, shared by
# should_run's selection and loopx status's "next".
package loopx.lib

# user_claim_deny(t) is what data.loopx.user.claim.deny says of the asking
# agent (input.agent; "" for none) claiming the todo t of input.goal at a
# round start: the input that claim would be decided on.
user_claim_deny(t) := d if {
	claim_input := object.union(input, {
		"query": "claim",
		"claim": {
			"op": "round_start", "from": "", "round": "", "outcome": "", "action": "",
			"todo": object.union({"goal": input.goal, "note": "", "conflict": null}, t),
		},
	})

	# The user's claim policy decides the claim this round start would
	# make: its input is that claim's, built here, not a test's mock.
	# regal ignore:with-outside-test-context
	d := data.loopx.user.claim.deny with input as claim_input
}
