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

# path_flags are, for each command path, its flags whose values name
# files the command reads or writes ("" stands for its positional
# arguments). The broker runs the command outside the sandbox, where it
# could read what the sandbox hides (the anchor directory, the home's
# credentials): each such value must lie in the round's work tree.
path_flags := {
	"loopx check": ["scan", ""],
	"loopx policy eval": ["input"],
	"loopx hooks uninstall": ["settings"],
}

# outside(command, paths) are the values of command's path flags that lie
# outside the work tree or in what the sandbox hides. paths maps a flag ("" the positional arguments)
# to the values given, each {"value": string, "outside": bool}, as Go
# resolved them (relative to the caller's directory, links followed).
outside(command, paths) := [v.value |
	some flag in path_flags[command]
	some v in paths[flag]
	v.outside
]

# decision(command, project, paths) is whether the command path command
# may run through the broker — {"allow": true} — or why not — {"allow":
# false, "message": "…"}: it must be listed, project (a --project flag
# was given) must not be true, and none of its path flags' values (paths,
# as outside reads them) may lie outside the work tree. (A function, not
# a rule over input: the broker's request is not a decision's input.)
# Always defined for a string command and an object paths.
# METADATA
# entrypoint: true
decision(command, project, paths) := {"allow": false, "message": $"{command} --project: a confined agent's loopx calls act on its own project only"} if {
	project == true
} else := {"allow": false, "message": $"{command} cannot run from inside the agent's confinement (it would run programs or write files outside it); a human runs it outside"} if {
	not command in commands
} else := {"allow": false, "message": $"{command}: {concat(", ", outside(command, paths))} lies outside the work tree or in what the sandbox hides: a confined agent's loopx calls name files it can see in its own work tree only"} if {
	count(outside(command, paths)) > 0
} else := {"allow": true}

# allowed(command, project) is true when decision allows the command
# given no path outside the work tree.
allowed(command, project) if decision(command, project, {}).allow
