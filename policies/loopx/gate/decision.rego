# METADATA
# title: loopx.gate
# description: |
#   The gate_answer query (design §6, §8, §16): may this answer to this gate
#   be recorded? The engine asks it inside the answer's transaction, with
#   the gate as stored and the facts of the channel the answer came through
#   (input.answer.channel: terminal, dashboard, agent or demo). Go gathers
#   the facts (is stdin a terminal, what was typed back, which ancestor
#   process runs an agent); the rules are here. allow or deny; the first
#   reason of a deny is the refusal the caller sees.
package loopx.gate

import data.loopx.lib

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

# Normalised views of the request: defined whatever the input's shape.
default answer := {}

answer := input.answer if is_object(input.answer)

default gate := {}

gate := answer.gate if is_object(answer.gate)

default gate_id := ""

gate_id := gate.id if is_string(gate.id)

default actor := ""

actor := answer.actor if is_string(answer.actor)

default chan := {}

chan := answer.channel if is_object(answer.channel)

default kind := ""

kind := chan.kind if is_string(chan.kind)

human if actor == "human"

agent_actor if startswith(actor, "agent:")

ref := $"gate {gate_id}"

strs(xs) := [x | some x in xs; is_string(x)]

# METADATA
# description: Fail closed when the store, spec or policy is unusable.
health := [lib.reason($"{k}_error", $"{k} unusable: {msg}", "data.loopx.gate.health", "") |
	some k in ["store", "spec", "policy"]
	msg := input.health[k]
	not msg in {"", null}
]

# METADATA
# description: An answer names a gate and an actor ("human" or "agent:ID").
bad_request := [lib.reason("bad_request", msg, "data.loopx.gate.bad_request", ref) |
	some [bad, msg] in [
		[gate_id == "", "an answer names a gate: input.answer.gate.id is missing"],
		[not_actor, $"answerer {actor} is neither \"human\" nor \"agent:ID\""],
		[has_acting, "a gate answer carries no input.answer.acting (that is the acting decision's)"],
	]
	bad == true
]

default not_actor := false

not_actor if {
	not human
	not agent_actor
}

# METADATA
# description: |
#   Who is acting (design §16): an agent acts only as itself, and an
#   agent's channel never answers as a human. One rule for every way a
#   command names an agent: a gate answer's --as agent:X, an act (--agent
#   of todo claim|renew|release|transfer, round start|finish, run, watch
#   --exec, hook: input.answer.acting.mode "act"), loopx mcp binding its
#   session ("bind") and each call of a bound MCP session ("session").
#   The caller's ancestry (input.answer.channel.acting_agents) is what Go
#   read from /proc; the rule judges it.
identity := [lib.reason(c[0], c[1], "data.loopx.gate.identity", identity_ref) | some c in identity_msgs]

# acting_req is input.answer.acting: present only when a command asks to
# act as an agent (the acting entrypoint), never on a gate answer.
default acting_req := {}

acting_req := answer.acting if is_object(answer.acting)

# mode is what is asked: "answer" (a gate answer), "act", "bind" or
# "session"; an unknown mode is "bad" (refused).
default mode := "answer"

mode := m if {
	is_object(answer.acting)
	m := object.get(acting_req, "mode", "")
	m in {"act", "bind", "session"}
} else := "bad" if is_object(answer.acting)

# named is the agent the request names ("" when it names none).
default named := ""

named := trim_prefix(actor, "agent:") if agent_actor

default bound := ""

bound := acting_req.bound if is_string(acting_req.bound)

# the wording of a refusal: what is refused, and who asks.
verb := "answer" if mode == "answer"

else := "act"

subject := "this server" if mode == "bind"

else := "this command"

# identity_ref is a refusal's ref: the gate answered, else the agent named.
default identity_ref := ""

identity_ref := ref if mode == "answer"

identity_ref := $"agents.{named}" if {
	mode != "answer"
	named != ""
}

# names_agent: the request acts as some agent, named or not (an act
# without --agent acts as the agent its ancestry carries).
names_agent if agent_actor

names_agent if mode in {"act", "bind"}

identity_msgs contains ["self_answer_forbidden", $"this command runs as agent {ra} (LOOPX_AGENT): it may answer only as agent:{ra}, not {actor}"] if {
	mode == "answer"
	ra := chan.round_agent
	is_string(ra)
	ra != ""
	actor != $"agent:{ra}"
}

identity_msgs contains ["self_answer_forbidden", $"gate {gate_id} needs a human answer, and an agent's channel cannot give one: answer it from your own terminal or the dashboard"] if {
	mode == "answer"
	kind == "agent"
	human
	object.get(chan, "round_agent", "") == ""
}

# acting_agents are the agents the caller's ancestor processes run as
# (LOOPX_AGENT in their start environment, the agent of a loopx run that
# runs them), when the engine read them.
default acting_agents := []

acting_agents := strs(chan.acting_agents) if {
	chan.ancestry_checked == true
	is_array(chan.acting_agents)
}

# refused_code is the code of an identity refusal.
refused_code := "self_answer_forbidden" if mode == "answer"

else := "agent_mismatch"

identity_msgs contains [refused_code, $"the processes above {subject} run as several agents ([{concat(" ", acting_agents)}]): an agent acts only as itself, so none of them may {verb} from here"] if {
	mode != "session"
	names_agent
	count(acting_agents) > 1
}

identity_msgs contains ["self_answer_forbidden", $"this command descends from agent {a}'s process: it may answer only as agent:{a}, not {actor}"] if {
	mode == "answer"
	agent_actor
	count(acting_agents) == 1
	a := acting_agents[0]
	actor != $"agent:{a}"
}

identity_msgs contains ["agent_mismatch", $"--agent {named}: {subject} descends from agent {a}'s process and may act only as {a}"] if {
	mode in {"act", "bind"}
	named != ""
	count(acting_agents) == 1
	a := acting_agents[0]
	named != a
}

identity_msgs contains ["self_answer_forbidden", $"{actor} acts only from a process descending from `loopx run --agent {named}` or from an agent host started with LOOPX_AGENT={named}; no process above this command is one"] if {
	mode == "answer"
	agent_actor
	chan.ancestry_checked == true
	count(acting_agents) == 0
}

# A session acts as the agent bound at its start, never as one a call names.
identity_msgs contains ["unbound_session", $"this MCP session is bound to no agent, so it cannot act as \"{named}\": start it with `loopx mcp --agent {named}` from that agent's host"] if {
	mode == "session"
	bound == ""
	named != ""
}

identity_msgs contains ["agent_mismatch", $"this MCP session acts as agent {bound} (bound at start): it cannot act as \"{named}\""] if {
	mode == "session"
	bound != ""
	named != ""
	named != bound
}

# METADATA
# description: |
#   The acting decision: may this command act as the agent it names, and
#   as which agent does it act? Asked by every command that acts as an
#   agent (input.answer.acting.mode act, bind or session; actor "agent:ID"
#   or "" when it names none). allow carries the agent: the one named;
#   else, for a session, the bound one; else the one agent the ancestry
#   carries ("" when none: a human acting for an agent names it). The
#   engine evaluates it with the built-in bundle only.
# entrypoint: true
default acting := {
	"verdict": "deny", "allow": false, "agent": "",
	"reasons": [{
		"code": "policy_undefined", "message": "acting produced no decision",
		"rule": "data.loopx.gate.acting", "ref": "",
	}],
}

acting := {"verdict": "allow", "allow": true, "agent": acting_as, "reasons": []} if count(acting_deny) == 0

else := {"verdict": "deny", "allow": false, "agent": "", "reasons": acting_deny}

acting_deny := [r | some rs in [acting_bad_request, identity]; some r in rs]

# METADATA
# description: An act names an agent ("agent:ID") or none (""), in a known mode.
acting_bad_request := [lib.reason("bad_request", msg, "data.loopx.gate.acting", "") | some msg in acting_bad_msgs]

acting_bad_msgs contains $"input.answer.acting.mode {m} is not act, bind or session" if {
	mode == "bad"
	m := object.get(acting_req, "mode", null)
}

acting_bad_msgs contains "an act needs input.answer.acting" if mode == "answer"

acting_bad_msgs contains $"the acting agent {actor} is not \"agent:ID\"" if {
	actor != ""
	named == ""
}

# has_acting: the request carries input.answer.acting.
default has_acting := false

has_acting if is_object(answer.acting)

# acting_as is the agent an allowed act acts as.
default acting_as := ""

acting_as := named if named != ""

acting_as := bound if {
	named == ""
	mode == "session"
}

acting_as := acting_agents[0] if {
	named == ""
	mode != "session"
	count(acting_agents) == 1
}

# METADATA
# description: A closed gate takes no answer.
closed := [lib.reason("gate_closed", $"gate {gate_id} is already closed ({s})", "data.loopx.gate.closed", ref) |
	gate_id != ""
	s := object.get(gate, "status", "")
	s != "open"
]

# METADATA
# description: The answer is one of the gate's options.
option := [lib.reason("unknown_option", $"option \"{o}\" is not one of gate {gate_id}'s options [{opts}]", "data.loopx.gate.option", ref) |
	gate_id != ""
	o := object.get(answer, "option", "")
	not o in strs(object.get(gate, "options", []))
	opts := concat(" ", strs(object.get(gate, "options", [])))
]

# METADATA
# description: A human answer never comes from inside an agent round.
in_round := [lib.reason("self_answer_forbidden", $"gate {gate_id} needs a human answer, and this command runs inside an agent round (LOOPX_ROUND/LOOPX_AGENT set): answer it from your own terminal", "data.loopx.gate.in_round", ref) |
	human
	chan.in_round == true
]

# raised_by is who raised the gate, as an answerer is named.
raised_by := r if {
	r := gate.raised_by
	r in {"human", "spec", "loopx"}
} else := $"agent:{gate.raised_by}"

# METADATA
# description: The agent that raised a gate cannot answer it.
raiser := [lib.reason("self_answer_forbidden", $"{actor} raised gate {gate_id} and cannot answer it", "data.loopx.gate.raiser", ref) |
	not human
	raised_by == actor
]

# METADATA
# description: Only the gate's answerers answer it.
answerer := [lib.reason("not_answerer", $"{actor} may not answer gate {gate_id} (answerers: [{names}])", "data.loopx.gate.answerer", ref) |
	gate_id != ""
	not actor in strs(object.get(gate, "answerers", []))
	names := concat(" ", strs(object.get(gate, "answerers", [])))
]

# METADATA
# description: |
#   The channel rule: a human answers at a terminal (confirmed there) or on
#   the dashboard (with its session token); an agent through its own
#   channel; loopx demo answers its own gate, only in a project it created.
channel := [lib.reason(code, msg, "data.loopx.gate.channel", ref) | some [code, msg] in channel_msgs]

channel_msgs contains ["bad_channel", $"gate answers come through a terminal, the dashboard, an agent or loopx demo; channel \"{kind}\" is none of them"] if {
	not kind in {"terminal", "dashboard", "agent", "demo"}
}

channel_msgs contains ["bad_channel", $"{actor} is an agent: agents answer through their own channel, not the {kind}"] if {
	agent_actor
	kind in {"terminal", "dashboard", "demo"}
}

channel_msgs contains ["confirmation_required", $"answering gate {gate_id} on the dashboard needs the dashboard's session token"] if {
	kind == "dashboard"
	not chan.session == true
}

channel_msgs contains ["demo_only", $"the demo channel answers gates only in a project loopx demo created; answer gate {gate_id} from your own terminal"] if {
	kind == "demo"
	not answer.project.demo == true
}

# METADATA
# description: A human answer at a terminal is confirmed there, by a person, not by an agent's descendant.
confirmation := [lib.reason(c[0], c[1], "data.loopx.gate.confirmation", ref) | human; kind == "terminal"; c := terminal_check]

terminal_check := ["self_answer_forbidden", $"gate {gate_id} needs a human answer, and this command descends from an agent ({anc}): answer it from your own terminal"] if {
	anc := chan.agent_ancestor
	is_string(anc)
	anc != ""
} else := ["confirmation_required", $"answering gate {gate_id} as a human needs a terminal to confirm on (stdin is not one); run it in your own terminal"] if {
	not chan.tty == true
} else := ["confirmation_required", $"answering gate {gate_id} as a human needs a terminal to confirm on (none here: {e}); run it in your own terminal"] if {
	e := chan.tty_error
	is_string(e)
	e != ""
} else := ["confirmation_pending", $"type the gate id {gate_id} on the terminal to confirm"] if {
	not is_string(chan.typed)
} else := ["confirmation_required", "no confirmation typed: nothing recorded"] if {
	chan.typed == ""
} else := ["confirmation_mismatch", $"typed \"{chan.typed}\", not the gate id {gate_id}: nothing recorded"] if {
	chan.typed != gate_id
}

# METADATA
# description: data.loopx.user.gate_answer.deny entries (any deny wins).
user_deny := [lib.user_reason(e, "user_policy", "data.loopx.user.gate_answer.deny") | some e in data.loopx.user.gate_answer.deny]

# METADATA
# description: data.loopx.user.gate_answer.warn entries, added to any verdict.
user_warn := [lib.user_reason(e, "user_warning", "data.loopx.user.gate_answer.warn") | some e in data.loopx.user.gate_answer.warn]

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

default human := false

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

else := [lib.reason(c[0], c[1], "data.loopx.gate.adopt", "loopx/") | kind == "terminal"; c := adopt_confirmation]

# adopt_word is what the person types back to adopt.
adopt_word := "adopt"

adopt_confirmation := ["confirmation_required", "adopting the rules needs a terminal to confirm on (stdin is not one); run loopx adopt in your own terminal"] if {
	not chan.tty == true
} else := ["confirmation_required", $"adopting the rules needs a terminal to confirm on (none here: {e}); run loopx adopt in your own terminal"] if {
	e := chan.tty_error
	is_string(e)
	e != ""
} else := ["confirmation_pending", $"type \"{adopt_word}\" on the terminal to confirm"] if {
	not is_string(chan.typed)
} else := ["confirmation_required", "no confirmation typed: nothing adopted"] if {
	chan.typed == ""
} else := ["confirmation_mismatch", $"typed \"{chan.typed}\", not \"{adopt_word}\": nothing adopted"] if {
	chan.typed != adopt_word
}
