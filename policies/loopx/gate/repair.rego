# The human-only repairs of loopx itself (data.loopx.gate.repair) and
# adopting the rules (data.loopx.gate.adopt): their own module, compiled
# only by the commands that ask them.
package loopx.gate

import data.loopx.lib

# METADATA
# description: |
#   Human-only repairs of loopx itself (accepting a store behind its
#   published revision, adopting rules): a human at a terminal or on the
#   dashboard, never from inside a round or an agent's process. The engine
#   evaluates this rule with the built-in bundle only: no user policy takes
#   part, so a broken one cannot lock the human out.
# entrypoint: true
default repair := {
	"verdict": "deny", "allow": false,
	"reasons": [{
		"code": "policy_undefined", "message": "repair produced no decision",
		"rule": "data.loopx.gate.repair", "ref": "",
	}],
}

repair := {"verdict": "allow", "allow": true, "reasons": []} if count(repair_deny) == 0

else := {"verdict": "deny", "allow": false, "reasons": repair_deny}

repair_deny := [lib.reason(code, msg, "data.loopx.gate.repair", "") | some [ok, code, msg] in repair_checks; not ok]

# repair_checks are [passes, code, message], in the order a refusal names them.
repair_checks := [
	[human, "self_answer_forbidden", "repairing loopx is for a human; this command runs as an agent"],
	[repair_channel, "bad_channel", $"repairing loopx is done at a terminal or on the dashboard, not through channel \"{kind}\""],
	[outside_round, "self_answer_forbidden", "repairing loopx is for a human, and this command runs inside an agent round (LOOPX_ROUND/LOOPX_AGENT set): run it from your own terminal"],
	[no_agent_ancestor, "self_answer_forbidden", $"repairing loopx is for a human, and this command descends from an agent ({object.get(chan, "agent_ancestor", "")}): run it from your own terminal"],
	[dashboard_session_ok, "confirmation_required", "repairing loopx on the dashboard needs the dashboard's session token"],
]

default repair_channel := false

repair_channel if kind in {"terminal", "dashboard"}

default outside_round := true

outside_round := false if chan.in_round == true

default no_agent_ancestor := true

no_agent_ancestor := false if not object.get(chan, "agent_ancestor", "") in {"", null}

default dashboard_session_ok := false

dashboard_session_ok if kind != "dashboard"

dashboard_session_ok if chan.session == true

# METADATA
# description: |
#   Adopting the rules in loopx/ (`loopx adopt`): repair's checks (a human,
#   at a terminal or on the dashboard, outside any round, not from an
#   agent's process), and at a terminal the person confirms by typing
#   "adopt" back on the controlling terminal (loopx reads /dev/tty, not
#   stdin: an agent piping input cannot confirm). Evaluated with the
#   built-in bundle only, like repair.
# entrypoint: true
default adopt := {
	"verdict": "deny", "allow": false,
	"reasons": [{
		"code": "policy_undefined", "message": "adopt produced no decision",
		"rule": "data.loopx.gate.adopt", "ref": "",
	}],
}

adopt := {"verdict": "allow", "allow": true, "reasons": []} if count(adopt_deny) == 0

else := {"verdict": "deny", "allow": false, "reasons": adopt_deny}

# adopt_deny: repair's refusals first; the confirmation only once the
# channel is one a human may adopt through.
adopt_deny := repair_deny if count(repair_deny) > 0

else := [lib.reason(c[0], c[1], "data.loopx.gate.adopt", "loopx/") | kind == "terminal"; c := typed_back("adopt", "adopting the rules", "loopx adopt", "nothing adopted")]

# typed_back is what stands between a human at a terminal and a repair
# that asks for word to be typed back (doing: what it is, cmd: the
# command to run again, none: what happens without it); undefined once
# word was typed.
typed_back(word, doing, cmd, none) := ["confirmation_required", $"{doing} needs a terminal to confirm on (stdin is not one); run {cmd} in your own terminal"] if {
	not chan.tty == true
} else := ["confirmation_required", $"{doing} needs a terminal to confirm on (none here: {e}); run {cmd} in your own terminal"] if {
	e := chan.tty_error
	is_string(e)
	e != ""
} else := ["confirmation_pending", $"type \"{word}\" on the terminal to confirm"] if {
	not is_string(chan.typed)
} else := ["confirmation_required", $"no confirmation typed: {none}"] if {
	chan.typed == ""
} else := ["confirmation_mismatch", $"typed \"{chan.typed}\", not \"{word}\": {none}"] if {
	chan.typed != word
}

# METADATA
# description: |
#   Restoring the adopted rules over loopx/ (`loopx adopt --restore`),
#   which overwrites every edit waiting there: repair's checks, and at a
#   terminal the person confirms by typing "restore" back on the
#   controlling terminal, after seeing the files it overwrites. Evaluated
#   with the built-in bundle only, like repair.
# entrypoint: true
default restore := {
	"verdict": "deny", "allow": false,
	"reasons": [{
		"code": "policy_undefined", "message": "restore produced no decision",
		"rule": "data.loopx.gate.restore", "ref": "",
	}],
}

restore := {"verdict": "allow", "allow": true, "reasons": []} if count(restore_deny) == 0

else := {"verdict": "deny", "allow": false, "reasons": restore_deny}

restore_deny := repair_deny if count(repair_deny) > 0

else := [lib.reason(c[0], c[1], "data.loopx.gate.restore", "loopx/") | kind == "terminal"; c := typed_back("restore", "restoring loopx/", "loopx adopt --restore", "nothing restored")]
