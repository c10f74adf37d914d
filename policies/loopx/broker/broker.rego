# METADATA
# title: loopx.broker
# description: |
#   What a loopx command inside an agent's confinement may have loopx run
#   outside it. loopx run's broker runs the confined agent's own loopx
#   calls outside the sandbox as the round's agent; a command that would
#   run a program outside (run, watch, demo), write the files the sandbox
#   shows read-only (init, hooks install) or act for another project
#   (--project) would carry the agent past the wall, so only the commands
#   listed here are run. The brokered loopx command asks decision (Go only
#   evaluates it, and refuses when it is undefined or fails). The
#   human-only commands among them (adopt, doctor --accept-store, gate
#   answer as human, …) are refused by their own channel rule, which sees
#   a round's agent.
package loopx.broker

# commands are the command paths (cobra's: "loopx round finish") a
# confined agent's loopx calls may run.
commands := [
	"loopx", "loopx help", "loopx version", "loopx schema", "loopx completion",
	"loopx completion bash", "loopx completion fish", "loopx completion powershell", "loopx completion zsh",
	"loopx status", "loopx vet", "loopx check", "loopx explain", "loopx log", "loopx events",
	"loopx adopt", "loopx doctor", "loopx review", "loopx prompt", "loopx hook", "loopx mcp",
	"loopx agent", "loopx agent list", "loopx agent register",
	"loopx decide", "loopx decide claim", "loopx decide gate-answer", "loopx decide permission", "loopx decide should-run",
	"loopx evidence", "loopx evidence add", "loopx evidence list",
	"loopx gate", "loopx gate answer", "loopx gate list", "loopx gate raise", "loopx gate show",
	"loopx goal", "loopx goal archive", "loopx goal done", "loopx goal list", "loopx goal pause", "loopx goal resume", "loopx goal show",
	"loopx handoff", "loopx handoff show",
	"loopx hooks uninstall",
	"loopx policy", "loopx policy eval", "loopx policy schema", "loopx policy test",
	"loopx preset", "loopx preset list", "loopx preset show",
	"loopx quota", "loopx quota status",
	"loopx round", "loopx round finish", "loopx round show", "loopx round start",
	"loopx todo", "loopx todo add", "loopx todo block", "loopx todo cancel", "loopx todo claim", "loopx todo done",
	"loopx todo list", "loopx todo release", "loopx todo renew", "loopx todo reopen", "loopx todo show", "loopx todo transfer",
]

# decision(command, project) is whether the command path command may run
# through the broker — {"allow": true} — or why not — {"allow": false,
# "message": "…"}: it must be listed, and project (a --project flag was
# given) must not be true. (A function, not a rule over input: the
# broker's request is not a decision's input.) Always defined for a string
# command.
# METADATA
# entrypoint: true
decision(command, project) := {"allow": false, "message": $"{command} --project: a confined agent's loopx calls act on its own project only"} if {
	project == true
} else := {"allow": true} if {
	command in commands
} else := {"allow": false, "message": $"{command} cannot run from inside the agent's confinement (it would run programs or write files outside it); a human runs it outside"}

# allowed(command, project) is true when decision allows the command.
allowed(command, project) if decision(command, project).allow
