# loopx's human-only verbs: a simple command that runs one denies.
package loopx.permission

import data.loopx.lib

# METADATA
# scope: document
# description: |
#   loopx's human-only verbs never run as an agent (the judgment stays
#   human): `gate answer`, `adopt`, `doctor --accept-store`,
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
default human_only := []

human_only := [lib.reason("human_only", msg, "data.loopx.permission.human_only", "") | some msg in argv_verbs] if count(argv_verbs) > 0

else := [lib.reason("human_only", msg, "data.loopx.permission.human_only", "")] if {
	opaque
	some m in regex.find_n(human_verb_text, loose, 1)
	verb := trim(m, " \t\n;&|()<>")
	msg := $"`{command}` cannot be read and names `{verb}`, a verb only a human may run"
}

else := [lib.reason("human_only", msg, "data.loopx.permission.human_only", "")] if {
	some r in opaque_reasons

	# The pattern holds backticks, which a raw string cannot.
	# regal ignore:non-raw-regex-pattern
	some m in regex.find_n("it may run `[^`]+`", r, 1)
	msg := $"`{command}` cannot be read and {m}, a verb only a human may run"
}

else := [lib.reason("human_only", "`loopx gate answer` is for a gate's answerers, never for an agent's tool call", "data.loopx.permission.human_only", "")] if {
	"loopx.gate.answer" in actions
	not peer_answer
}

# argv_verbs are the simple commands that run a human-only verb (each
# verb looked up by a word of the line: carries needs its first word
# there, and most lines hold none).
argv_verbs contains $"`{concat(" ", a)}` runs `loopx {v.name}`, which only a human may run" if {
	some w in run_words
	v := human_verbs[w]
	some a in run_argvs
	carries(a, v)
	not exempt(a, v)
}

# run_words are the words of every simple command.
run_words contains w if {
	some a in run_argvs
	some w in a
}

# human_verbs are the verbs by their first word (words, plus a flag when
# the flag makes it human-only).
human_verbs := {
	"gate": {"name": "gate answer", "words": ["gate", "answer"], "flag": ""},
	"adopt": {"name": "adopt", "words": ["adopt"], "flag": ""},
	"doctor": {"name": "doctor --accept-store", "words": ["doctor"], "flag": "--accept-store"},
	"events": {"name": "events --prune-before", "words": ["events"], "flag": "--prune-before"},
	"hooks": {"name": "hooks uninstall", "words": ["hooks", "uninstall"], "flag": ""},
	"agent": {"name": "agent register", "words": ["agent", "register"], "flag": ""},
	"dashboard": {"name": "dashboard", "words": ["dashboard"], "flag": ""},
}

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
	has_flag(argv, v.flag)
	some j, w in argv
	j > 0
	w == v.words[0]
	only_flags(argv, 1, j)
	rest_at(argv, v, j)
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
