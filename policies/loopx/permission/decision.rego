# METADATA
# title: loopx.permission
# description: |
#   The permission query (design §6): may this agent use this tool, write these
#   paths, run this command? Every rule that objects adds a reason; deny beats
#   ask beats allow and defer. `allow` is a grant: only a goals.<g>.scope.grant
#   entry matching the whole call gives it (a host skips its own prompt on it).
#   A call no grant matches and no rule objects to is `defer`: loopx has no
#   objection and the host's own permission flow decides. scope.write and
#   scope.commands.allow are restrictions, never grants.
#   loopx protects itself, the hooks that govern agents and the files that
#   run the human's next command: the protected set is never writable, loopx's
#   human-only verbs never run as an agent, and a command line the engine
#   cannot read (opaque) is never allowed.
#   The engine normalises input.permission in Go: paths relative to the project
#   root, slash-separated, with outside_project / symlink_outside / resolved;
#   via_command for a file a shell command writes, mentioned for a path-like
#   word an opaque command names; the simple commands of the command line
#   (argvs, and joined as commands), the reasons it is opaque (opaque), and
#   the actions they map to (actions). Path globs have doublestar semantics
#   (lib.glob_match); command patterns are globs where * matches anything.
package loopx.permission

import data.loopx.lib

# METADATA
# description: The permission answer; always defined (undefined inputs deny).
# entrypoint: true
default decision := {
	"verdict": "deny", "allow": false, "todo": null, "next_check_at": null, "charge": false,
	"reasons": [{
		"code": "policy_undefined", "message": "permission produced no decision",
		"rule": "data.loopx.permission.decision", "ref": "",
	}],
}

decision := object.union(o, {"reasons": array.concat(o.reasons, user_warn)}) if o := outcome

outcome := answer("deny", deny) if count(deny) > 0

else := answer("ask", ask) if count(ask) > 0

else := answer("allow", granted) if count(granted) > 0

else := answer("defer", [lib.reason(
	"no_grant", $"{call_name}: no rule objects and no scope.grant matches; the host's own permission flow decides",
	"data.loopx.permission.decision", $"goals.{goal_id}.scope.grant",
)])

# allow is true for a grant only: defer (no objection) is not a grant.
answer(verdict, reasons) := {
	"verdict": verdict, "allow": verdict == "allow", "todo": null,
	"next_check_at": null, "charge": false, "reasons": reasons,
}

# Reasons in the order people should read them.
deny := [r | some rs in [health, bad_request, goal_agent, human_only, protected, outside, scope_denied, outside_scope, command_denied, opaque_as("deny"), gate_open, goal_gate, user_deny]; some r in rs]

ask := [r | some rs in [opaque_as("ask"), command_ask, command_not_allowed]; some r in rs]

# Normalised views of input and spec: defined whatever the input's shape.
default goal_id := ""

goal_id := input.goal if is_string(input.goal)

default req := {}

req := input.permission if is_object(input.permission)

default scope := {}

scope := data.loopx.spec.goals[goal_id].scope if is_object(data.loopx.spec.goals[goal_id].scope)

default cmd_spec := {}

cmd_spec := scope.commands if is_object(scope.commands)

strs(xs) := [x | some x in xs; is_string(x)] if is_array(xs)

else := []

globs(k) := strs(object.get(scope, k, []))

patterns(k) := strs(object.get(cmd_spec, k, []))

paths := [p | some p in object.get(req, "paths", []); is_object(p); is_string(p.path)]

default command := ""

command := trim_space(req.command) if is_string(req.command)

segments := strs(object.get(req, "commands", []))

# argvs are the simple commands' normalised argv lists (read with object.get:
# an input written by hand may lack them); without them each segment split
# on spaces stands in.
argvs := [a | some x in object.get(req, "argvs", null); is_array(x); a := strs(x); count(a) > 0] if has_argvs

else := [a | some c in segments; a := [w | some w in split(trim_space(c), " "); w != ""]; count(a) > 0]

has_argvs if is_array(object.get(req, "argvs", null))

# simple_commands are the simple commands as command patterns see them.
simple_commands := [concat(" ", a) | some a in argvs]

# Everything a command pattern is matched against: the raw line, each
# simple command, and the canonical command of each action the line (or
# tool) carries, so that `git send-pack`, `git subtree push`, a push
# through an alias (action git.push) ask or deny under "git push*" like
# `git push`, and any force push (git.push.force) under "git push --force*".
# A pattern is matched against the action names too (command_hit).
cmd_targets := text_targets | {canonical_commands[a] | some a in actions}

text_targets := {c | some c in array.concat(array.concat([command], segments), simple_commands); c != ""}

# canonical_commands are the commands loopx's actions stand for.
canonical_commands := {
	"git.push": "git push", "git.push.force": "git push --force", "git.merge": "git merge", "git.commit": "git commit", "git.tag": "git tag",
	"npm.publish": "npm publish", "loopx.gate.answer": "loopx gate answer",
}

actions := {a | some a in array.concat([object.get(req, "action", "")], strs(object.get(req, "actions", []))); is_string(a); a != ""}

# call_name names the call in messages: its tool, else its command, else "the call".
call_name := object.get(req, "tool", "") if object.get(req, "tool", "") != ""

# (count, not command != "": OPA v1.22's formatter garbles a string literal
# in the body of a middle else, and every .rego file is kept opa fmt clean.)
else := $"`{command}`" if count(command) > 0

else := "the call"

# opaque_reasons say why the engine cannot know what the command line runs
# or writes (input.permission.opaque); a line that does not parse, or a
# command line without any simple command read from it, is opaque too.
opaque_reasons := array.concat(strs(object.get(req, "opaque", [])), unread)

# (The reader says why a line does not parse; the policy says it only when the reader did not.)
unread := [] if {
	req.command_parsed == false
	count(strs(object.get(req, "opaque", []))) > 0
} else := ["it does not parse"] if req.command_parsed == false

else := ["no simple command was read from it"] if {
	command != ""
	not has_argvs
	count(segments) == 0
}

else := []

opaque if count(opaque_reasons) > 0

# names are the project-relative names a path is checked under (itself and its symlink target).
names(p) := {n | some n in [p.path, object.get(p, "resolved", p.path)]; is_string(n); n != ""}

outside_path(p) if p.outside_project == true

outside_path(p) if p.symlink_outside == true

# cmd_match matches a command pattern: * matches anything, / and . included
# (glob.match's empty delimiter list would mean ".").
cmd_match(g, c) := glob.match(g, ["\u0000"], c)

# METADATA
# description: Fail closed when the store, spec or policy is unusable.
health := [lib.reason($"{k}_error", $"{k} unusable: {msg}", "data.loopx.permission.health", "") |
	some k in ["store", "spec", "policy"]
	msg := input.health[k]
	not msg in {"", null}
]

# METADATA
# description: A request without input.permission or with a malformed path denies.
bad_request := [lib.reason("bad_request", msg, "data.loopx.permission.bad_request", "") |
	some msg in array.concat(
		[m | not has_request; m := "no permission request (input.permission)"],
		[$"malformed path entry {p}" | some p in object.get(req, "paths", []); not has_path(p)],
	)
]

# (`not is_object(x)` is false, not true, when x is undefined: use helper rules.)
has_request if is_object(input.permission)

has_path(p) if is_string(p.path)

# METADATA
# description: |
#   The goal must be in the spec, the agent known and on the goal. Not
#   judged while the store, spec or policy is unusable (health denies
#   then): an unreadable store knows no registration, and saying the agent
#   is unknown would send a human after the wrong fault.
default goal_agent := []

goal_agent := goal_agent_checks if count(health) == 0

default goal_agent_checks := []

goal_agent_checks := [lib.reason("unknown_goal", $"goal {goal_id} is not declared in the spec", "data.loopx.permission.goal_agent", $"goals.{goal_id}")] if {
	not goal_known
} else := [lib.reason("unknown_agent", $"agent {input.agent} is neither declared in the spec nor registered", "data.loopx.permission.goal_agent", $"agents.{input.agent}")] if {
	not input.state.agent.known == true
} else := [lib.reason("agent_not_on_goal", $"agent {input.agent} is not in the agents of goal {goal_id}", "data.loopx.permission.goal_agent", $"goals.{goal_id}.agents")] if {
	not lib.agent_on_goal
}

goal_known if is_object(data.loopx.spec.goals[goal_id])

# METADATA
# description: |
#   Never written by agents: the protected set (data.loopx.protected, one
#   list that loopx run's change check reads too): loopx's own spec,
#   policies and state; the agent hosts' hook and tool settings in any
#   directory of the project; git's files that run code at the next git
#   command or hide files from git (hooks, config, info/, .gitattributes);
#   the files a human's tools run on their own (.envrc, .vscode/tasks.json);
#   the user's files in the home directory that load agent hooks or run the
#   human's next command (~/.claude.json, ~/.gitconfig, ~/.bashrc, …; Go
#   gives each path's home-relative names as p.home); and any directory
#   containing one of them (.claude, .git, ~/.codex, the home itself, a directory containing
#   the project or the home: removing or moving it removes them). An opaque
#   command that names one of them (a mentioned path) denies too; one that
#   names only a directory containing them all (., the home, /) asks as any
#   opaque command.
protected := [lib.reason("protected_path", msg, "data.loopx.permission.protected", "") |
	some p in paths
	msg := protected_message(p)
]

protected_message(p) := msg if {
	hits := [n | some n in names(p); guarded_name(p, n)]
	count(hits) > 0
	msg := named_message(p, $"{p.path}{via(p, hits)}", protected_kind(hits[0]), covers_verb(protected_globs(hits[0]), hits[0]))
} else := msg if {
	hits := [h | some h in strs(object.get(p, "home", [])); home_setting(h); not all_home_named(p, h)]
	count(hits) > 0
	msg := named_message(p, $"{p.path} ({home_name(hits[0])})", home_kind, covers_verb(home_settings, lower(hits[0])))
} else := $"{p.path} contains the project and loopx's own loopx/ and .loopx/" if {
	p.contains_project == true
	not mentioned(p)
} else := $"{p.path} contains the user's home directory and its {home_kind}" if {
	p.contains_home == true
	not mentioned(p)
}

# named_message says which protected name p is (verb "is") or contains.
named_message(p, name, kind, verb) := $"`{command}` cannot be read and names {p.path}, {kind}" if mentioned(p)

else := $"{name} {verb} {kind}: agents may not write it"

guarded_name(p, n) if {
	protected_kind(n)
	not container_named(p, n)
}

container_named(p, ".") if mentioned(p)

all_home_named(p, ".") if mentioned(p)

protected_kind(n) := $"loopx's own ({concat(", ", protected_set.own)})" if own(n)

else := $"an agent host's hook or tool settings ({listed(host_settings)})" if host_setting(n)

else := $"git's files that run code at the next git command or hide files from git ({listed(git_settings)})" if git_setting(n)

else := $"a file the human's tools run on their own ({listed(next_command_files)})" if next_command_file(n)

# protected_globs are the globs a protected name n falls under (for the message's verb).
protected_globs(n) := protected_set.own if own(n)

else := host_settings if host_setting(n)

else := git_settings if git_setting(n)

else := next_command_files

# protected_set is the protected set, one list in one place
# (policies/loopx/protected: loopx run's change check hashes the same files).
protected_set := data.loopx.protected

# listed writes globs for people: "**/" dropped.
listed(gs) := concat(", ", [trim_prefix(g, "**/") | some g in gs])

own(".")

own(n) if {
	some g in protected_set.own
	covers(g, lower(n))
}

# host_settings are the files through which agent hosts load hooks and
# tools, in any directory (an absolute name in the home too).
host_settings := protected_set.hosts

host_setting(n) if {
	some g in host_settings
	covers(g, lower(n))
}

# git_settings run code at the next git command (hooks; core.hooksPath,
# core.fsmonitor, aliases, filter drivers in the config; the attributes
# selecting them) or hide files from git (info/exclude).
git_settings := protected_set.git

git_setting(n) if {
	some g in git_settings
	covers(g, lower(n))
}

# next_command_files are project files a human's tools run on their own.
next_command_files := protected_set.next_command

next_command_file(n) if {
	some g in next_command_files
	covers(g, lower(n))
}

# home_settings are the user's files, relative to the home directory, that
# load hooks or tools into an agent host or run the human's next command.
home_settings := protected_set.home

home_kind := $"user-level agent host settings or files that run the human's next command ({concat(", ", [home_name(g) | some g in home_settings])})"

# home_name writes a home-relative name as the shell would (~, ~/x).
home_name(".") := "~"

home_name(h) := concat("/", ["~", h]) if h != "."

home_setting(".")

home_setting(h) if {
	some g in home_settings
	covers(g, lower(h))
}

# METADATA
# description: |
#   covers(g, n): glob g matches the name n, or n is a directory that may
#   contain a match (removing, moving or chmod -R'ing n reaches it): n
#   matches g's first k segments, the k-th not **, and g has more
#   ("secrets" for secrets/**, ".claude" and "a/.claude" for
#   **/.claude/settings*.json, "api" for api/**/gen/**). A name below a
#   ** segment is not taken for a container (it may be a file: api/v2 for
#   api/**/gen/**, src for **/*.pem); "." covers every glob.
covers(g, n) if lib.glob_match(g, n)

covers(_, ".")

covers(g, n) if {
	gs := split(trim_prefix(g, "./"), "/")
	some k in numbers.range(1, count(gs) - 1)
	k < count(gs)
	gs[k - 1] != "**"
	lib.glob_match(concat("/", array.slice(gs, 0, k)), n)
}

# covers_verb is "is" when a glob matches n itself, "contains" when n only contains a match.
covers_verb(gs, n) := "is" if {
	some g in gs
	lib.glob_match(g, lower(n))
} else := "contains"

mentioned(p) if object.get(p, "mentioned", false) == true

via(p, hits) := $" (-> {hits[0]})" if hits[0] != p.path

else := ""

# METADATA
# description: |
#   loopx's human-only verbs never run as an agent (design §8, §16: the
#   judgment stays human): `gate answer`, `adopt`, `doctor --accept-store`,
#   `events --prune-before`, `hooks uninstall`, `agent register`, `dashboard`.
#   Any simple command carries one when, after its command word, only flags
#   and the values they may take come before the verb's words (and between
#   them), and a flag verb's flag is among its words, whatever its command
#   word: a copied or renamed loopx binary (./bin/lx, /tmp/x) answers the
#   same. So `git commit -m "adopt x"`, `git log --author adopt` and `npm run
#   dashboard` pass: a non-flag word comes first.
#   False positives avoided: a one-word verb (adopt, dashboard) right after a
#   well-known tool's bare name (`cd dashboard`, `make dashboard`, `ls adopt`)
#   passes, unless the line could make that name run something else (a path
#   ending in that name, PATH=, alias, hash, function definitions).
#   That exemption trusts the bare name: a loopx copy an earlier call put on
#   the PATH under a tool's name (~/.local/bin/make) runs `make dashboard`
#   unseen; the multi-word and flag verbs (gate answer…) are never exempt.
#   False positives kept: `echo gate answer` and `ag dashboard` (an unknown
#   tool) deny; in an opaque line (which asks anyway) any human-only verb
#   named in the raw text denies, so `find . -exec grep adopt {} +` denies.
#   The peer exception: an agent answering a gate that names it answers as
#   itself (`gate answer G --option O --as agent:<itself>`) in one plain,
#   readable command; the engine still checks the gate's answerers.
human_only := [lib.reason("human_only", msg, "data.loopx.permission.human_only", "") | some msg in argv_verbs] if count(argv_verbs) > 0

else := [lib.reason("human_only", msg, "data.loopx.permission.human_only", "")] if {
	opaque
	some m in regex.find_n(human_verb_text, loose, 1)
	verb := trim(m, " \t\n;&|()<>")
	msg := $"`{command}` cannot be read and names `{verb}`, a verb only a human may run"
}

else := [lib.reason("human_only", msg, "data.loopx.permission.human_only", "")] if {
	some r in opaque_reasons
	some m in regex.find_n("it may run `[^`]+`", r, 1)
	msg := $"`{command}` cannot be read and {m}, a verb only a human may run"
}

else := [lib.reason("human_only", "`loopx gate answer` is for a gate's answerers, never for an agent's tool call", "data.loopx.permission.human_only", "")] if {
	"loopx.gate.answer" in actions
	not peer_answer
}

else := []

# argv_verbs are the simple commands that run a human-only verb.
argv_verbs contains $"`{concat(" ", a)}` runs `loopx {v.name}`, which only a human may run" if {
	some a in run_argvs
	some v in human_verbs
	carries(a, v)
	not exempt(a, v)
}

# human_verbs are the verbs (words, plus a flag when the flag makes it human-only).
human_verbs := [
	{"name": "gate answer", "words": ["gate", "answer"], "flag": ""},
	{"name": "adopt", "words": ["adopt"], "flag": ""},
	{"name": "doctor --accept-store", "words": ["doctor"], "flag": "--accept-store"},
	{"name": "events --prune-before", "words": ["events"], "flag": "--prune-before"},
	{"name": "hooks uninstall", "words": ["hooks", "uninstall"], "flag": ""},
	{"name": "agent register", "words": ["agent", "register"], "flag": ""},
	{"name": "dashboard", "words": ["dashboard"], "flag": ""},
]

# unquoted is the raw line without quotes and backslashes (g""ate 'answer').
unquoted := regex.replace(command, `['"\\]`, "")

# loose is unquoted with the escapes \n, \r, \t read as spaces
# (printf 'gate\nanswer\n' | xargs loopx) and the punctuation of
# expansions too: `loopx "$(echo gate)" answer` names gate answer.
loose := regex.replace(regex.replace(regex.replace(command, `\\[nrt]`, " "), `['"\\]`, ""), `[$(){}\x60]|:[-=+?]`, " ")

# run_argvs are argvs plus, for `go run PKG ARGS…` and `cargo run -- ARGS…`,
# the argv of the program they build from each non-flag word (or --) after
# run (the program is one loopx cannot name): `go run ./cmd/loopx gate
# answer` and `cargo run -- adopt` carry their verbs.
run_argvs := array.concat(argvs, [array.slice(a, k, count(a)) |
	some a in argvs
	count(a) > 2
	a[0] in {"go", "cargo"}
	a[1] == "run"
	some k, w in a
	k > 1
	run_start(w)
])

run_start(w) if not startswith(w, "-")

run_start("--")

# human_verb_text finds a human-only verb in a raw line's text.
human_verb_text := `\bgate\s+answer\b|\bhooks\s+uninstall\b|\bagent\s+register\b|--accept-store\b|--prune-before\b|(?:^|[^\w./-])(?:adopt|dashboard)(?:[^\w./-]|$)`

# carries: argv runs the verb v when, after the command word, only flags
# and the values they may take come before the verb's first word, and
# between its words. Any flag without "=" may take the next word as its
# value: cobra's own command search skips it so (`lx --prune-before X
# events` runs events).
carries(argv, v) if {
	some j, w in argv
	j > 0
	w == v.words[0]
	only_flags(argv, 1, j)
	rest_at(argv, v, j)
	has_flag(argv, v.flag)
}

rest_at(_, v, _) if count(v.words) == 1

rest_at(argv, v, j) if {
	count(v.words) == 2
	some j2, w in argv
	j2 > j
	w == v.words[1]
	only_flags(argv, j + 1, j2)
}

# only_flags: every word of argv from index from (included) to to
# (excluded) is a flag or may be a flag's value.
only_flags(argv, from, to) if count([k | some k, _ in argv; k >= from; k < to; not flaglike(argv, k)]) == 0

flaglike(argv, k) if startswith(argv[k], "-")

flaglike(argv, k) if {
	k > 1
	startswith(argv[k - 1], "-")
	not contains(argv[k - 1], "=")
}

has_flag(_, "")

has_flag(argv, f) if {
	f != ""
	some w in array.slice(argv, 1, count(argv))
	flag_is(w, f)
}

flag_is(w, f) if w == f

flag_is(w, f) if startswith(w, concat("", [f, "="]))

exempt(_, v) if {
	v.name == "gate answer"
	peer_answer
}

exempt(a, v) if {
	count(v.words) == 1
	a[0] in common_tools
	not renamable(a[0])
}

# common_tools are bare command words that are not loopx.
common_tools := {
	"cd", "pushd", "ls", "cat", "less", "head", "tail", "grep", "rg", "find", "fd", "echo", "printf",
	"mkdir", "rmdir", "touch", "cp", "mv", "rm", "ln", "stat", "file", "wc", "sort", "diff", "tree",
	"du", "git", "gh", "make", "npm", "npx", "pnpm", "yarn", "go", "cargo", "docker", "sed", "awk",
	"jq", "code", "vim", "vi", "nano", "open", "test", "which",
}

# renamable: the line could make word run another program.
renamable(_) if regex.match(`(?:^|[^\w.-])PATH=|\b(?:alias|hash|function|enable)\b|\(\)`, command)

renamable(word) if contains(command, concat("", ["/", word]))

# A peer agent answering a gate that names it as an answerer
# ("agent:<id>") answers as itself, in one plain command whose only --as
# is agent:<itself>; the engine still checks the gate's answerers and
# refuses the agent that raised it.
peer_answer if {
	not opaque
	count(argvs) == 1
	is_string(input.agent)
	input.agent != ""
	[v | some i, _ in argvs[0]; v := as_value(argvs[0], i)] == [$"agent:{input.agent}"]
}

as_value(argv, i) := argv[i + 1] if argv[i] == "--as"

as_value(argv, i) := substring(argv[i], 5, -1) if startswith(argv[i], "--as=")

# METADATA
# description: |
#   Tool paths outside the project (.. traversal, absolute, symlinks out)
#   deny. A file a shell command writes (via_command) or names (mentioned)
#   may be outside: a shell may write /tmp and read /etc.
outside := [r |
	some p in paths
	not p.via_command == true
	not mentioned(p)
	r := outside_reason(p)
]

outside_reason(p) := lib.reason("outside_project", $"{p.path} is outside the project", "data.loopx.permission.outside", "") if p.outside_project == true

else := lib.reason("symlink_outside", $"{p.path} resolves through a symlink to {object.get(p, "resolved", "")}, outside the project", "data.loopx.permission.outside", "") if p.symlink_outside == true

# METADATA
# description: |
#   A path matching a goals.<g>.scope.deny glob denies, and so does a
#   directory that may contain such a path (covers: rm -rf secrets, mv
#   secrets /tmp, chmod -R 000 secrets under secrets/**).
scope_denied := [lib.reason("scope_denied", msg, "data.loopx.permission.scope_denied", $"goals.{goal_id}.scope.deny") |
	some p in paths
	not outside_path(p)
	hits := [g | some g in globs("deny"); some n in names(p); covers(g, n); not container_named(p, n)]
	count(hits) > 0
	msg := denied_message(p, hits[0])
]

denied_message(p, g) := $"`{command}` cannot be read and names {p.path}, which matches scope.deny pattern {g}" if mentioned(p)

else := $"{p.path} matches scope.deny pattern {g}" if some_name_matches(p, g)

else := $"{p.path} contains paths matching scope.deny pattern {g}"

some_name_matches(p, g) if {
	some n in names(p)
	lib.glob_match(g, n)
}

# METADATA
# description: |
#   With goals.<g>.scope.write set, a tool path matching none of its globs
#   denies (a restriction, never a grant). Files a shell command writes or
#   names are not held to it (see outside).
outside_scope := [lib.reason("outside_scope", msg, "data.loopx.permission.outside_scope", $"goals.{goal_id}.scope.write") |
	count(globs("write")) > 0
	some p in paths
	not p.via_command == true
	not mentioned(p)
	not outside_path(p)
	not every_writable(p)
	msg := $"{p.path} is outside scope.write {concat(", ", globs("write"))}"
]

every_writable(p) if every n in names(p) {
	writable(n)
}

writable(n) if {
	some g in globs("write")
	lib.glob_match(g, n)
}

# METADATA
# description: A command matching a goals.<g>.scope.commands.deny pattern denies.
command_denied := command_hits("deny", "command_denied")

# METADATA
# description: A command matching a goals.<g>.scope.commands.ask pattern asks.
command_ask := command_hits("ask", "command_ask")

command_hits(k, code) := [lib.reason(code, msg, $"data.loopx.permission.{code}", $"goals.{goal_id}.scope.commands.{k}") |
	some g in patterns(k)
	command_hit(g)
	msg := command_hit_message(g, k)
]

# command_hit: pattern g matches a command target, or names an action of
# the call ("git.push.force", "git.push*").
command_hit(g) if {
	some c in cmd_targets
	cmd_match(g, c)
}

command_hit(g) if {
	some a in actions
	cmd_match(g, a)
}

command_hit_message(g, k) := $"`{hits[0]}` matches scope.commands.{k} pattern {g}" if {
	hits := [c | some c in text_targets; cmd_match(g, c)]
	count(hits) > 0
} else := $"`{command}` is a `{hits[0].c}` (action {hits[0].a}), which matches scope.commands.{k} pattern {g}" if {
	hits := [{"a": a, "c": c} | some a in actions; c := canonical_commands[a]; cmd_match(g, c)]
	count(hits) > 0
} else := $"`{command}` takes action {hits[0]}, which matches scope.commands.{k} pattern {g}" if {
	hits := [a | some a in actions; cmd_match(g, a)]
	count(hits) > 0
}

# METADATA
# description: With scope.commands.allow set (a restriction, never a grant), a simple command matching none of it asks.
command_not_allowed := [lib.reason("command_not_allowed", $"`{c}` matches no scope.commands.allow pattern", "data.loopx.permission.command_not_allowed", $"goals.{goal_id}.scope.commands.allow") |
	count(patterns("allow")) > 0
	some c in ({s | some s in simple_commands} | {command | count(simple_commands) == 0; command != ""})
	not command_allowed(c)
]

command_allowed(c) if {
	some g in patterns("allow")
	cmd_match(g, c)
}

# METADATA
# description: |
#   A command line the engine cannot read (opaque: it cannot know what runs
#   or what is written; see input.permission.opaque) is never allowed: it
#   asks a human, or denies with goals.<g>.scope.commands.opaque: "deny".
#   An opaque line that names a protected path denies (protected, scope_denied).
command_opaque := [lib.reason("command_opaque", msg, "data.loopx.permission.command_opaque", $"goals.{goal_id}.scope.commands.opaque") |
	opaque
	msg := $"`{command}` cannot be read safely ({concat("; ", opaque_reasons)}): a human decides"
]

default opaque_mode := "ask"

opaque_mode := "deny" if cmd_spec.opaque == "deny"

opaque_as(mode) := command_opaque if opaque_mode == mode

else := []

# METADATA
# description: |
#   A grant (goals.<g>.scope.grant) matches the whole call: its tool name
#   matches a grant.tools pattern; or every part of it is granted, the part
#   being a shell command line (readable, and every simple command matches a
#   grant.commands pattern) and the paths a writing or shell tool writes
#   (every name matches a grant.paths glob and scope.write when that is set).
#   A tool that is neither (an MCP tool, WebFetch) is granted by grant.tools
#   only. An opaque line is never granted, whatever grant.tools or
#   grant.commands say, nor one whose argv may hide what runs
#   (command_words_unsure); a grant never overrides an objection (deny and
#   ask come first).
granted := [] if opaque

else := [] if named_only_ungranted

else := [tool_grant] if tool_grant

else := parts_grant if {
	grantable_kind
	count(parts_grant) > 0
	command_granted
	paths_granted
}

else := []

default grant := {}

grant := scope.grant if is_object(scope.grant)

grant_list(k) := strs(object.get(grant, k, []))

tool_name := object.get(req, "tool", "")

tool_grant := lib.reason("granted", $"{tool_name} matches scope.grant.tools pattern {gs[0]}", "data.loopx.permission.granted", $"goals.{goal_id}.scope.grant.tools") if {
	tool_name != ""
	gs := [g | some g in grant_list("tools"); cmd_match(g, tool_name)]
	count(gs) > 0
}

# grantable_kind: a shell or file-writing tool, or a question without a tool.
grantable_kind if tool_name == ""

grantable_kind if {
	some a in actions
	a in {"shell.exec", "fs.write"}
}

# grant_paths are the paths a call writes (a mentioned path is only named).
grant_paths := [p | some p in paths; not mentioned(p)]

parts_grant := array.concat(
	[lib.reason("granted", $"every simple command matches scope.grant.commands: {concat(", ", command_grants)}", "data.loopx.permission.granted", $"goals.{goal_id}.scope.grant.commands") | command != ""],
	[lib.reason("granted", $"every path matches scope.grant.paths: {concat(", ", path_grants)}", "data.loopx.permission.granted", $"goals.{goal_id}.scope.grant.paths") | count(grant_paths) > 0],
)

command_grants := [$"`{c}` ({gs[0]})" |
	some i, a in argvs
	c := concat(" ", a)
	gs := [g | some g in grant_list("commands"); grant_covers(g, c, i)]
	count(gs) > 0
]

# grant_covers: grant.commands entry g covers the simple command c (argv
# number i): a pattern matching it, or the name of an action it takes
# (input.permission.argv_actions).
grant_covers(g, c, _) if cmd_match(g, c)

grant_covers(g, _, i) if g in argv_actions(i)

argv_actions(i) := strs(object.get(req, "argv_actions", [])[i]) if is_array(object.get(req, "argv_actions", [])[i])

else := []

# named_only_actions are the actions a grant covers only by naming them in
# scope.grant.commands: no pattern, broader action or tool grant does (a
# grant of git.push or "git push*", or of the Bash tool, never covers a
# force push).
named_only_actions := {"git.push.force"}

named_only_ungranted if {
	some a in actions
	a in named_only_actions
	not a in grant_list("commands")
}

command_granted if command == ""

command_granted if {
	count(simple_commands) > 0
	count(command_grants) == count(simple_commands)
	not command_words_unsure
}

# command_words_unsure: the engine's argv hides something that changes what
# a granted command runs: a command word named by a path (argv[0] is its
# base name: /tmp/x/go matches "go test*"), a line that redefines names
# (PATH=, alias, a function), or a leading NAME=value assignment
# (GOFLAGS=-toolexec=…, LD_PRELOAD=…). Such a line is not granted (defer).
command_words_unsure if {
	some a in argvs
	renamable(a[0])
}

command_words_unsure if regex.match(`(?:^|[\s;&|(])[A-Za-z_][A-Za-z0-9_]*=`, command)

path_grants := [$"{p.path} ({gs[0]})" |
	some p in grant_paths
	gs := [g | some g in grant_list("paths"); every n in names(p) {
		lib.glob_match(g, n)
	}]
	count(gs) > 0
	writable_if_restricted(p)
]

paths_granted if count(path_grants) == count(grant_paths)

writable_if_restricted(_) if count(globs("write")) == 0

writable_if_restricted(p) if every_writable(p)

# METADATA
# description: An open gate guarding one of the request's actions (or a command pattern) denies until it is answered.
gate_open := [lib.reason("gate_open", msg, "data.loopx.permission.gate_open", $"gate {id}") |
	some g in input.state.gates
	is_object(g)
	id := object.get(g, "id", "")
	hits := [x | some x in strs(object.get(g, "guards", [])); guarded(x)]
	count(hits) > 0
	msg := $"gate {id} is open: {object.get(g, "question", "")} ({hits[0]} waits for its answer)"
]

guarded(x) if x in actions

# METADATA
# description: An open gate that stops this agent's work on the goal (lib.gate_blocks_agent, shared with should_run and claim) denies every tool call until it is answered.
goal_gate := [lib.reason("gate_open", msg, "data.loopx.permission.goal_gate", $"gate {id}") |
	some g in input.state.gates
	is_object(g)
	lib.gate_blocks_agent(g, input.agent)
	id := object.get(g, "id", "")
	msg := $"gate {id} is open: {object.get(g, "question", "")} (work on the goal waits for its answer)"
]

guarded(x) if {
	some c in cmd_targets
	cmd_match(x, c)
}

# METADATA
# description: data.loopx.user.permission.deny entries (any deny wins).
user_deny := [user_reason(e, "user_policy", "deny") | some e in data.loopx.user.permission.deny]

# METADATA
# description: data.loopx.user.permission.warn entries, added to any verdict.
user_warn := [user_reason(e, "user_warning", "warn") | some e in data.loopx.user.permission.warn]

# user_reason accepts a string or an object {code, message, ref}.
user_reason(e, code, k) := lib.reason(object.get(e, "code", code), object.get(e, "message", $"{e}"), $"data.loopx.user.permission.{k}", object.get(e, "ref", "")) if is_object(e)

else := lib.reason(code, $"{e}", $"data.loopx.user.permission.{k}", "")
