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
#   agent's process), and at a terminal the person confirms by typing
#   "adopt" back on the controlling terminal (loopx reads /dev/tty, not
#   stdin: an agent piping input cannot confirm).
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

else := [lib.reason(c[0], c[1], "data.loopx.adopt.confirm", "loopx/") | request.kind == "terminal"; c := typed_back("adopt", "adopting the rules", "loopx adopt", "nothing adopted")]

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

else := [lib.reason(c[0], c[1], "data.loopx.adopt.restore", "loopx/") | request.kind == "terminal"; c := typed_back("restore", "restoring loopx/", "loopx adopt --restore", "nothing restored")]

# typed_back is repair.typed_back (the one wording of a typed confirmation).
typed_back(word, doing, cmd, none) := repair.typed_back(word, doing, cmd, none)
