package loopx.permission

import data.loopx.identity

# METADATA
# description: |
#   A PreToolUse hook's question in one evaluation: may the hook's caller
#   act as the agent it names (data.loopx.identity.acting over
#   input.answer, the same rule every act asks), and, when it acts as the
#   agent this input is for (input.agent, or none: the host's default the
#   engine put there), the permission decision. "decision" is left out
#   when the act is refused or acts as another agent (an ancestry carrying
#   an agent the hook did not name): the engine then decides for that
#   agent, or refuses the act.
# entrypoint: true
hook := {"acting": identity.acting, "decision": decision} if {
	identity.acting.allow
	identity.acting.agent in {"", input.agent}
} else := {"acting": identity.acting}
