# METADATA
# title: loopx.identity
# description: |
#   Who is acting: an agent acts only as itself, and an agent's channel
#   never answers as a human. One rule for every way a command names an
#   agent: a gate answer's --as agent:X (the gate_answer decision reads
#   refusals), an act (--agent of todo claim|renew|release|transfer, round
#   start|finish, run, watch --exec, hook: input.answer.acting.mode "act"),
#   loopx mcp binding its session ("bind") and each call of a bound MCP
#   session ("session"). The caller's ancestry
#   (input.answer.channel.acting_agents) is what Go read from /proc; the
#   rules judge it.
package loopx.identity

import data.loopx.lib
import data.loopx.request

# acting_req is input.answer.acting: present only when a command asks to
# act as an agent (the acting entrypoint), never on a gate answer.
default acting_req := {}

acting_req := request.answer.acting if request.has_acting

# mode is what is asked: "answer" (a gate answer), "act", "bind" or
# "session"; an unknown mode is "bad" (refused).
default mode := "answer"

mode := m if {
	request.has_acting
	m := object.get(acting_req, "mode", "")
	m in known_modes
}

mode := "bad" if {
	request.has_acting
	not object.get(acting_req, "mode", "") in known_modes
}

known_modes := {"act", "bind", "session"}

# named is the agent the request names ("" when it names none).
default named := ""

named := trim_prefix(request.actor, "agent:") if request.agent_actor

default bound := ""

bound := acting_req.bound if is_string(acting_req.bound)

# the wording of a refusal: what is refused, and who asks.
default verb := "act"

verb := "answer" if mode == "answer"

default subject := "this command"

subject := "this server" if mode == "bind"

# ref is a refusal's ref: the gate answered, else the agent named.
default ref := ""

ref := request.ref if mode == "answer"

ref := $"agents.{named}" if {
	mode != "answer"
	named != ""
}

# names_agent: the request acts as some agent, named or not (an act
# without --agent acts as the agent its ancestry carries).
names_agent if request.agent_actor

names_agent if mode in {"act", "bind"}

# acting_agents are the agents the caller's ancestor processes run as
# (LOOPX_AGENT in their start environment, the agent of a loopx run that
# runs them), when the engine read them.
default acting_agents := []

acting_agents := request.strs(request.chan.acting_agents) if {
	request.chan.ancestry_checked == true
	is_array(request.chan.acting_agents)
}

# refused_code is the code of a refusal that is not about a gate answer alone.
default refused_code := "agent_mismatch"

refused_code := "self_answer_forbidden" if mode == "answer"

# METADATA
# scope: document
# description: |
#   refusals are [code, message] pairs, one for each way the request acts
#   as an agent it may not act as.
refusals contains ["self_answer_forbidden", msg] if {
	mode == "answer"
	ra := request.chan.round_agent
	is_string(ra)
	ra != ""
	request.actor != $"agent:{ra}"
	msg := $"this command runs as agent {ra} (LOOPX_AGENT): it may answer only as agent:{ra}, not {request.actor}"
}

refusals contains ["self_answer_forbidden", msg] if {
	mode == "answer"
	request.kind == "agent"
	request.human
	object.get(request.chan, "round_agent", "") == ""
	msg := $"gate {request.gate_id} needs a human answer, and an agent's channel cannot give one: answer it from your own terminal or the dashboard"
}

refusals contains [refused_code, msg] if {
	mode != "session"
	names_agent
	count(acting_agents) > 1
	msg := $"the processes above {subject} run as several agents ([{concat(" ", acting_agents)}]): an agent acts only as itself, so none of them may {verb} from here"
}

refusals contains ["self_answer_forbidden", msg] if {
	mode == "answer"
	request.agent_actor
	count(acting_agents) == 1
	a := acting_agents[0]
	request.actor != $"agent:{a}"
	msg := $"this command descends from agent {a}'s process: it may answer only as agent:{a}, not {request.actor}"
}

refusals contains ["agent_mismatch", msg] if {
	mode in {"act", "bind"}
	named != ""
	count(acting_agents) == 1
	a := acting_agents[0]
	named != a
	msg := $"--agent {named}: {subject} descends from agent {a}'s process and may act only as {a}"
}

refusals contains ["self_answer_forbidden", msg] if {
	mode == "answer"
	request.agent_actor
	request.chan.ancestry_checked == true
	count(acting_agents) == 0
	msg := $"{request.actor} acts only from a process descending from `loopx run --agent {named}` or from an agent host started with LOOPX_AGENT={named}; no process above this command is one"
}

# A command below a process that runs in a round, with no agent above it,
# would act as a human: an agent's process that left its runner and
# dropped LOOPX_AGENT still carries LOOPX_ROUND. Refused: inside a round a
# command acts as the round's agent or not at all.
refusals contains ["agent_mismatch", msg] if {
	mode == "act"
	acting_as == ""
	p := round_ancestors[0]
	msg := $"{subject} descends from process {p.pid} ({p.cmd}), which runs in round {p.round}, and no process above it runs as an agent: inside a round a command acts as the round's agent (under `loopx run`, or an agent host started with LOOPX_AGENT), never as a human; run it from your own terminal"
}

# A session acts as the agent bound at its start, never as one a call names.
refusals contains ["unbound_session", msg] if {
	mode == "session"
	bound == ""
	named != ""
	msg := $"this MCP session is bound to no agent, so it cannot act as \"{named}\": start it with `loopx mcp --agent {named}` from that agent's host"
}

refusals contains ["agent_mismatch", msg] if {
	mode == "session"
	bound != ""
	named != ""
	named != bound
	msg := $"this MCP session acts as agent {bound} (bound at start): it cannot act as \"{named}\""
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
		"rule": "data.loopx.identity.acting", "ref": "",
	}],
}

acting := {"verdict": "allow", "allow": true, "agent": acting_as, "reasons": []} if count(acting_deny) == 0

else := {"verdict": "deny", "allow": false, "agent": "", "reasons": acting_deny}

acting_deny := array.concat(acting_bad_request, [lib.reason(c[0], c[1], "data.loopx.identity.refusals", ref) | some c in refusals])

# METADATA
# description: An act names an agent ("agent:ID") or none (""), in a known mode.
acting_bad_request := [lib.reason("bad_request", msg, "data.loopx.identity.acting", "") | some msg in acting_bad_msgs]

acting_bad_msgs contains $"input.answer.acting.mode {m} is not act, bind or session" if {
	mode == "bad"
	m := object.get(acting_req, "mode", null)
}

acting_bad_msgs contains "an act needs input.answer.acting" if mode == "answer"

acting_bad_msgs contains $"the acting agent {request.actor} is not \"agent:ID\"" if {
	request.actor != ""
	named == ""
}

# round_ancestors are the processes above the command that run in a round
# (LOOPX_ROUND in the environment they started with), nearest first.
round_ancestors := [p |
	some p in request.chan.ancestry
	is_object(p)
	is_string(p.round)
	p.round != ""
]

# acting_as is the agent an allowed act acts as.
default acting_as := ""

acting_as := named if {
	named != ""
	not env_unconfirmed
}

acting_as := bound if {
	named == ""
	mode == "session"
}

acting_as := acting_agents[0] if {
	named == ""
	mode != "session"
	count(acting_agents) == 1
}

# env_unconfirmed: the agent named comes from $LOOPX_AGENT alone (the
# actor of a command's events, input.answer.acting.from_env) and the
# checked ancestry does not carry it: a plain shell's variable, so the
# command acts as a human (""); an ancestry of another agent is refused
# (agent_mismatch).
env_unconfirmed if {
	acting_req.from_env == true
	request.chan.ancestry_checked == true
	not named in acting_agents
}
