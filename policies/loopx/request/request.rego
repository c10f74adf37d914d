# METADATA
# title: loopx.request
# description: |
#   The request a gate answer, an act as an agent or a human-only repair
#   makes (input.answer), as the rules read it: normalised views defined
#   whatever the input's shape, shared by the gate_answer decision
#   (loopx.gate), who is acting (loopx.identity), the human-only repairs
#   (loopx.repair) and adopting the rules (loopx.adopt).
package loopx.request

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

# default human: false unless the actor is "human".
default human := false

human if actor == "human"

agent_actor if startswith(actor, "agent:")

# has_acting: the request carries input.answer.acting (an act as an
# agent, never a gate answer).
default has_acting := false

has_acting if is_object(answer.acting)

ref := $"gate {gate_id}"

strs(xs) := [x | some x in xs; is_string(x)]
