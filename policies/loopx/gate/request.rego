# The gate package's normalised views of the request (input.answer):
# defined whatever the input's shape, shared by the answer decision
# (decision.rego), the acting decision (identity.rego) and the human-only
# repairs (repair.rego). Kept in its own module so that a query compiles
# only the modules its entry rule reaches (policies.EntryModules).
package loopx.gate

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

# default human: false unless the actor is "human".
default human := false
