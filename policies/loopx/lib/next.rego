# What loopx status lists of a goal's todos: the todos should_run would
# select next, and the todos for humans, from the same rules should_run
# reads (todos.rego, gates.rego).
package loopx.lib

# next_todos(todos, gates) is what loopx status lists of a goal's todos
# (input.state.todos for no agent, its open gates), as indexes in todos:
#   next     the todos should_run would select for an agent holding none, in
#            its order: claim_order less the todos an agent holds (a live
#            lease), the monitors not due and the todos a todo gate holds back
#   for_you  the workable todos for humans (gate and action), in input order
# METADATA
# entrypoint: true
next_todos(todos, gates) := {
	"next": [i | some i in claim_order(todos); not i in out],
	"for_you": [i | some i, t in todos; workable(t); not agent_work(t)],
} if {
	out := (unfit(todos, {"id": ""}).held | not_due(todos)) | gated(todos, gates)
}
