# Who is acting (design §16): the identity rules shared by a gate answer
# and the acting decision (data.loopx.gate.acting), which every command
# acting as an agent asks; its own module, so that acting compiles without
# the answer's and the repairs' rules.
package loopx.gate

import data.loopx.lib

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
