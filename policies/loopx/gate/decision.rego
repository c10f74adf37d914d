# METADATA
# title: loopx.gate
# description: |
#   The gate_answer query: may this answer to this gate
#   be recorded? The engine asks it inside the answer's transaction, with
#   the gate as stored and the facts of the channel the answer came through
#   (input.answer.channel: terminal, dashboard, agent or demo). Go gathers
#   the facts (is stdin a terminal, what was typed back, which ancestor
#   process runs an agent); the rules are here. allow or deny; the first
#   reason of a deny is the refusal the caller sees.
package loopx.gate

import data.loopx.lib
import data.loopx.request

# METADATA
# description: The gate_answer answer; always defined (undefined inputs deny).
# entrypoint: true
default decision := {
	"verdict": "deny", "allow": false,
	"reasons": [{
		"code": "policy_undefined", "message": "gate_answer produced no decision",
		"rule": "data.loopx.gate.decision", "ref": "",
	}],
}

decision := {"verdict": "allow", "allow": true, "reasons": user_warn} if count(deny) == 0

else := {"verdict": "deny", "allow": false, "reasons": array.concat(deny, user_warn)}

# deny lists every reason against the answer, most important first.
deny := [r | some rs in [health, bad_request, identity, closed, option, in_round, raiser, answerer, channel, confirmation, user_deny]; some r in rs]

# METADATA
# description: |
#   Who is acting (loopx.identity): an agent answers only as itself, and
#   an agent's channel never answers as a human.
identity := [lib.reason(c[0], c[1], "data.loopx.gate.identity", data.loopx.identity.ref) | some c in data.loopx.identity.refusals]

# METADATA
# description: Fail closed when the store, spec or policy is unusable.
health := [lib.reason($"{k}_error", $"{k} unusable: {msg}", "data.loopx.gate.health", "") |
	some k in ["store", "spec", "policy"]
	msg := input.health[k]
	not msg in {"", null}
]

# METADATA
# description: An answer names a gate and an actor ("human" or "agent:ID").
bad_request := [lib.reason("bad_request", msg, "data.loopx.gate.bad_request", request.ref) |
	some [bad, msg] in [
		[request.gate_id == "", "an answer names a gate: input.answer.gate.id is missing"],
		[not_actor, $"answerer {request.actor} is neither \"human\" nor \"agent:ID\""],
		[request.has_acting, "a gate answer carries no input.answer.acting (that is the acting decision's)"],
	]
	bad == true
]

default not_actor := false

not_actor if {
	not request.human
	not request.agent_actor
}

# METADATA
# description: A closed gate takes no answer.
closed := [lib.reason("gate_closed", $"gate {request.gate_id} is already closed ({s})", "data.loopx.gate.closed", request.ref) |
	request.gate_id != ""
	s := object.get(request.gate, "status", "")
	s != "open"
]

# METADATA
# description: The answer is one of the gate's options.
option := [lib.reason("unknown_option", $"option \"{o}\" is not one of gate {request.gate_id}'s options [{opts}]", "data.loopx.gate.option", request.ref) |
	request.gate_id != ""
	o := object.get(request.answer, "option", "")
	not o in request.strs(object.get(request.gate, "options", []))
	opts := concat(" ", request.strs(object.get(request.gate, "options", [])))
]

# METADATA
# description: A human answer never comes from inside an agent round.
in_round := [lib.reason("self_answer_forbidden", $"gate {request.gate_id} needs a human answer, and this command runs inside an agent round (LOOPX_ROUND/LOOPX_AGENT set): answer it from your own terminal", "data.loopx.gate.in_round", request.ref) |
	request.human
	request.chan.in_round == true
]

# raised_by is who raised the gate, as an answerer is named.
raised_by := r if {
	r := request.gate.raised_by
	r in {"human", "spec", "loopx"}
} else := $"agent:{request.gate.raised_by}"

# METADATA
# description: The agent that raised a gate cannot answer it.
raiser := [lib.reason("self_answer_forbidden", $"{request.actor} raised gate {request.gate_id} and cannot answer it", "data.loopx.gate.raiser", request.ref) |
	not request.human
	raised_by == request.actor
]

# METADATA
# description: Only the gate's answerers answer it.
answerer := [lib.reason("not_answerer", $"{request.actor} may not answer gate {request.gate_id} (answerers: [{names}])", "data.loopx.gate.answerer", request.ref) |
	request.gate_id != ""
	not request.actor in request.strs(object.get(request.gate, "answerers", []))
	names := concat(" ", request.strs(object.get(request.gate, "answerers", [])))
]

# METADATA
# description: |
#   The channel rule: a human answers at a terminal (confirmed there) or on
#   the dashboard (with its session token); an agent through its own
#   channel; loopx demo answers its own gate, only in a project it created.
channel := [lib.reason(code, msg, "data.loopx.gate.channel", request.ref) | some [code, msg] in channel_msgs]

channel_msgs contains ["bad_channel", $"gate answers come through a terminal, the dashboard, an agent or loopx demo; channel \"{request.kind}\" is none of them"] if {
	not request.kind in {"terminal", "dashboard", "agent", "demo"}
}

channel_msgs contains ["bad_channel", $"{request.actor} is an agent: agents answer through their own channel, not the {request.kind}"] if {
	request.agent_actor
	request.kind in {"terminal", "dashboard", "demo"}
}

channel_msgs contains ["confirmation_required", $"answering gate {request.gate_id} on the dashboard needs the dashboard's session token"] if {
	request.kind == "dashboard"
	not request.chan.session == true
}

channel_msgs contains ["demo_only", $"the demo channel answers gates only in a project loopx demo created; answer gate {request.gate_id} from your own terminal"] if {
	request.kind == "demo"
	not request.answer.project.demo == true
}

# METADATA
# description: A human answer at a terminal is confirmed there, by a person, not by an agent's descendant.
confirmation := [lib.reason(terminal_check[0], terminal_check[1], "data.loopx.gate.confirmation", request.ref) | request.human; request.kind == "terminal"]

terminal_check := ["self_answer_forbidden", $"gate {request.gate_id} needs a human answer, and this command descends from an agent ({anc}): answer it from your own terminal"] if {
	anc := request.chan.agent_ancestor
	is_string(anc)
	anc != ""
} else := ["confirmation_required", $"answering gate {request.gate_id} as a human needs a terminal to confirm on (stdin is not one); run it in your own terminal"] if {
	not request.chan.tty == true
} else := ["confirmation_required", $"answering gate {request.gate_id} as a human needs a terminal to confirm on (none here: {e}); run it in your own terminal"] if {
	e := request.chan.tty_error
	is_string(e)
	e != ""
} else := ["confirmation_pending", $"type the gate id {request.gate_id} on the terminal to confirm"] if {
	not is_string(request.chan.typed)
} else := ["confirmation_required", "no confirmation typed: nothing recorded"] if {
	request.chan.typed == ""
} else := ["confirmation_mismatch", $"typed \"{request.chan.typed}\", not the gate id {request.gate_id}: nothing recorded"] if {
	request.chan.typed != request.gate_id
}

# METADATA
# description: data.loopx.user.gate_answer.deny entries (any deny wins).
user_deny := [lib.user_reason(e, "user_policy", "data.loopx.user.gate_answer.deny") | some e in data.loopx.user.gate_answer.deny]

# METADATA
# description: data.loopx.user.gate_answer.warn entries, added to any verdict.
user_warn := [lib.user_reason(e, "user_warning", "data.loopx.user.gate_answer.warn") | some e in data.loopx.user.gate_answer.warn]
