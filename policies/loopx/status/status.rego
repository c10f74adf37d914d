# What loopx status asks of the rules beyond the claim order
# (lib.next_todos): which todos a user claim policy keeps from "next".
package loopx.status

import data.loopx.lib

# METADATA
# description: |
#   denied: the ids of the open task and monitor todos of
#   input.state.todos that a user claim policy denies to an agent holding
#   none (input.agent ""): loopx status leaves them out of a goal's
#   "next", as should_run leaves them out of its selection
#   (lib.user_claim_deny, the claim its round start would make).
# entrypoint: true
denied contains t.id if {
	some t in input.state.todos
	t.status == "open"
	t.kind in {"task", "monitor"}
	count(lib.user_claim_deny(t)) > 0
}
