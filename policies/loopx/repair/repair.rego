# METADATA
# title: loopx.repair
# description: |
#   Human-only repairs of loopx itself (doctor --accept-store and
#   --salvage, agent register, hooks uninstall, review --mark, events
#   --prune-before); the ones that lose or undo something ask for a word
#   typed back at a terminal (accept_store, uninstall_hooks, mark_reviewed): a human at a terminal or on the dashboard, never
#   from inside a round or an agent's process. Adopting the rules and
#   restoring them (loopx.adopt) start with these checks. The engine
#   evaluates these rules with the built-in bundle only: no user policy
#   takes part, so a broken one cannot lock the human out.
package loopx.repair

import data.loopx.lib
import data.loopx.request

# METADATA
# description: The repair decision; always defined (undefined inputs deny).
# entrypoint: true
default decision := {
	"verdict": "deny", "allow": false,
	"reasons": [{
		"code": "policy_undefined", "message": "repair produced no decision",
		"rule": "data.loopx.repair.decision", "ref": "",
	}],
}

decision := {"verdict": "allow", "allow": true, "reasons": []} if count(deny) == 0

else := {"verdict": "deny", "allow": false, "reasons": deny}

# deny lists the failed checks, in the order a refusal names them.
deny := [lib.reason(code, msg, "data.loopx.repair.decision", "") | some [ok, code, msg] in checks; not ok]

# checks are [passes, code, message].
checks := [
	[request.human, "self_answer_forbidden", "repairing loopx is for a human; this command runs as an agent"],
	[human_channel, "bad_channel", $"repairing loopx is done at a terminal or on the dashboard, not through channel \"{request.kind}\""],
	[outside_round, "self_answer_forbidden", "repairing loopx is for a human, and this command runs inside an agent round (LOOPX_ROUND/LOOPX_AGENT set): run it from your own terminal"],
	[no_agent_ancestor, "self_answer_forbidden", $"repairing loopx is for a human, and this command descends from an agent ({object.get(request.chan, "agent_ancestor", "")}): run it from your own terminal"],
	[dashboard_session_ok, "confirmation_required", "repairing loopx on the dashboard needs the dashboard's session token"],
]

default human_channel := false

human_channel if request.kind in {"terminal", "dashboard"}

default outside_round := true

outside_round := false if request.chan.in_round == true

default no_agent_ancestor := true

no_agent_ancestor := false if not object.get(request.chan, "agent_ancestor", "") in {"", null}

default dashboard_session_ok := false

dashboard_session_ok if request.kind != "dashboard"

dashboard_session_ok if request.chan.session == true

# METADATA
# description: |
#   Accepting the store as it is (`loopx doctor --accept-store`), which
#   drops what the chain recorded after the store's revision: the checks
#   above, and at a terminal the person confirms by typing "accept" back
#   on the controlling terminal after reading what is lost.
# entrypoint: true
default accept_store := {
	"verdict": "deny", "allow": false,
	"reasons": [{
		"code": "policy_undefined", "message": "accept-store produced no decision",
		"rule": "data.loopx.repair.accept_store", "ref": "",
	}],
}

accept_store := {"verdict": "allow", "allow": true, "reasons": []} if count(accept_store_deny) == 0

else := {"verdict": "deny", "allow": false, "reasons": accept_store_deny}

accept_store_deny := deny if count(deny) > 0

else := [lib.reason(c[0], c[1], "data.loopx.repair.accept_store", ".loopx/") | request.kind == "terminal"; c := typed_back("accept", "accepting the store", "loopx doctor --accept-store", "nothing accepted")]

# METADATA
# description: |
#   Starting over at a path whose anchor remembers an older chain (`loopx
#   init` where .loopx/ is gone: the directory was deleted or the
#   repository cloned again), which begins a new chain and leaves the old
#   one's records behind: the checks above, and at a terminal the person
#   confirms by typing "start over" back on the controlling terminal after
#   reading what the old chain reached.
# entrypoint: true
default start_over := {
	"verdict": "deny", "allow": false,
	"reasons": [{
		"code": "policy_undefined", "message": "start-over produced no decision",
		"rule": "data.loopx.repair.start_over", "ref": "",
	}],
}

start_over := {"verdict": "allow", "allow": true, "reasons": []} if count(start_over_deny) == 0

else := {"verdict": "deny", "allow": false, "reasons": start_over_deny}

start_over_deny := deny if count(deny) > 0

else := [lib.reason(c[0], c[1], "data.loopx.repair.start_over", ".loopx/") | request.kind == "terminal"; c := typed_back("start over", "starting over", "loopx init", "nothing started")]

# METADATA
# description: |
#   Uninstalling loopx's hooks (`loopx hooks uninstall`), after which the
#   host no longer asks loopx about any tool call: the checks above, and at
#   a terminal the person confirms by typing "uninstall" back on the
#   controlling terminal after reading which entries go.
# entrypoint: true
default uninstall_hooks := {
	"verdict": "deny", "allow": false,
	"reasons": [{
		"code": "policy_undefined", "message": "uninstall-hooks produced no decision",
		"rule": "data.loopx.repair.uninstall_hooks", "ref": "",
	}],
}

uninstall_hooks := {"verdict": "allow", "allow": true, "reasons": []} if count(uninstall_hooks_deny) == 0

else := {"verdict": "deny", "allow": false, "reasons": uninstall_hooks_deny}

uninstall_hooks_deny := deny if count(deny) > 0

else := [lib.reason(c[0], c[1], "data.loopx.repair.uninstall_hooks", "") | request.kind == "terminal"; c := typed_back("uninstall", "uninstalling the hooks", "loopx hooks uninstall", "nothing removed")]

# METADATA
# description: |
#   Marking a goal reviewed (`loopx review --mark`), after which the next
#   review starts past what this one shows: the checks above, and at a
#   terminal the person confirms by typing "mark" back on the controlling
#   terminal after reading what the next review leaves out.
# entrypoint: true
default mark_reviewed := {
	"verdict": "deny", "allow": false,
	"reasons": [{
		"code": "policy_undefined", "message": "mark-reviewed produced no decision",
		"rule": "data.loopx.repair.mark_reviewed", "ref": "",
	}],
}

mark_reviewed := {"verdict": "allow", "allow": true, "reasons": []} if count(mark_reviewed_deny) == 0

else := {"verdict": "deny", "allow": false, "reasons": mark_reviewed_deny}

mark_reviewed_deny := deny if count(deny) > 0

else := [lib.reason(c[0], c[1], "data.loopx.repair.mark_reviewed", "") | request.kind == "terminal"; c := typed_back("mark", "marking the review", "loopx review --mark", "nothing marked")]

# typed_on_page is the same on the dashboard: the person types word into
# the page's confirmation before the request is sent (the session stands
# for the terminal); undefined once word was typed.
typed_on_page(word, none) := ["confirmation_pending", $"type \"{word}\" on the page to confirm"] if {
	not is_string(request.chan.typed)
} else := ["confirmation_required", $"no confirmation typed: {none}"] if {
	request.chan.typed == ""
} else := ["confirmation_mismatch", $"typed \"{request.chan.typed}\", not \"{word}\": {none}"] if {
	request.chan.typed != word
}

# typed_back is what stands between a human at a terminal and a repair
# that asks for word to be typed back (doing: what it is, cmd: the
# command to run again, none: what happens without it); undefined once
# word was typed.
typed_back(word, doing, cmd, none) := ["confirmation_required", $"{doing} needs a terminal to confirm on (stdin is not one); run {cmd} in your own terminal"] if {
	not request.chan.tty == true
} else := ["confirmation_required", $"{doing} needs a terminal to confirm on (none here: {e}); run {cmd} in your own terminal"] if {
	e := request.chan.tty_error
	is_string(e)
	e != ""
} else := ["confirmation_pending", $"type \"{word}\" on the terminal to confirm"] if {
	not is_string(request.chan.typed)
} else := ["confirmation_required", $"no confirmation typed: {none}"] if {
	request.chan.typed == ""
} else := ["confirmation_mismatch", $"typed \"{request.chan.typed}\", not \"{word}\": {none}"] if {
	request.chan.typed != word
}
