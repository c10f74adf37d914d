# Adopting the rules in loopx/ and restoring the adopted ones over it are
# a human's: the repair checks (loopx.repair), and at a terminal the word
# typed back. Evaluated with the built-in bundle only, like repair.
package loopx.adopt

import data.loopx.lib
import data.loopx.repair
import data.loopx.request

# METADATA
# description: |
#   Adopting the rules in loopx/ (`loopx adopt`): repair's checks (a human,
#   at a terminal or on the dashboard, outside any round, not from an
#   agent's process), and the person confirms by typing "adopt" back on
#   the controlling terminal (loopx reads /dev/tty, not stdin: an agent
#   piping input cannot confirm) or on the dashboard's page.
# entrypoint: true
default confirm := {
	"verdict": "deny", "allow": false,
	"reasons": [{
		"code": "policy_undefined", "message": "adopt produced no decision",
		"rule": "data.loopx.adopt.confirm", "ref": "",
	}],
}

confirm := {"verdict": "allow", "allow": true, "reasons": []} if count(confirm_deny) == 0

else := {"verdict": "deny", "allow": false, "reasons": confirm_deny}

# confirm_deny: repair's refusals first; the confirmation only once the
# channel is one a human may adopt through.
confirm_deny := repair.deny if count(repair.deny) > 0

else := [lib.reason(c[0], c[1], "data.loopx.adopt.confirm", "loopx/") | c := typed("adopt", "adopting the rules", "loopx adopt", "nothing adopted")]

# METADATA
# description: |
#   Restoring the adopted rules over loopx/ (`loopx adopt --restore`),
#   which overwrites every edit waiting there: repair's checks, and at a
#   terminal the person confirms by typing "restore" back on the
#   controlling terminal, after seeing the files it overwrites.
# entrypoint: true
default restore := {
	"verdict": "deny", "allow": false,
	"reasons": [{
		"code": "policy_undefined", "message": "restore produced no decision",
		"rule": "data.loopx.adopt.restore", "ref": "",
	}],
}

restore := {"verdict": "allow", "allow": true, "reasons": []} if count(restore_deny) == 0

else := {"verdict": "deny", "allow": false, "reasons": restore_deny}

restore_deny := repair.deny if count(repair.deny) > 0

else := [lib.reason(c[0], c[1], "data.loopx.adopt.restore", "loopx/") | c := typed("restore", "restoring loopx/", "loopx adopt --restore", "nothing restored")]

# typed is what stands between a human's channel and the change: word
# typed back at the terminal (repair.typed_back) or on the dashboard's page
# (repair.typed_on_page); undefined once typed.
typed(word, doing, cmd, none) := repair.typed_back(word, doing, cmd, none) if {
	request.kind == "terminal"
} else := repair.typed_on_page(word, none) if {
	request.kind == "dashboard"
}
