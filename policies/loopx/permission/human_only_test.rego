package loopx.permission_test

test_gate_answer_is_human_only if {
	d := decide(req(object.union(bash("./loopx gate answer g-1 --option approve"), {"actions": ["shell.exec", "loopx.gate.answer"]})))
	d.verdict == "deny"
	d.reasons == [{
		"code": "human_only", "message": "`./loopx gate answer g-1 --option approve` runs `loopx gate answer`, which only a human may run",
		"rule": "data.loopx.permission.human_only", "ref": "",
	}]

	# The action alone (--action loopx.gate.answer) is enough.
	decide(req({"tool": "", "action": "loopx.gate.answer", "actions": ["loopx.gate.answer"]})).reasons == [{
		"code": "human_only", "message": "`loopx gate answer` is for a gate's answerers, never for an agent's tool call",
		"rule": "data.loopx.permission.human_only", "ref": "",
	}]

	# Without the engine's simple commands the line is opaque, and its raw text gives it away.
	d2 := decide(req({"command": "env X=1 loopx --json gate  answer g-1"}))
	d2.verdict == "deny"
	codes(d2) == ["human_only"] # a deny shows its deny reasons only
	d2.reasons[0].message == "`env X=1 loopx --json gate  answer g-1` cannot be read and names `gate  answer`, a verb only a human may run"
	decide(req(bash("loopx gate list && echo answer"))).verdict == "defer"
}

test_peer_agent_may_answer_as_itself if {
	run("loopx gate answer api/review --option approve --as agent:claude").verdict == "defer"
	run("loopx gate answer api/review --option approve --as=agent:claude").verdict == "defer"
}

test_answering_as_another_agent_or_a_human_is_refused if {
	"human_only" in codes(run("loopx gate answer api/review --option approve --as agent:codex"))
	"human_only" in codes(run("loopx gate answer api/review --option approve"))
	"human_only" in codes(run("loopx gate answer api/review --option approve --as agent:claude --as human"))
	"human_only" in codes(run("loopx gate answer api/review --option approve --as human --as agent:claude"))
	"human_only" in codes(run("loopx gate answer api/review --as agent:claude && loopx gate answer other --as agent:claude"))
	d := decide(req(opaque_bash("script -qec 'loopx gate answer g-1 --option approve --as agent:claude' /dev/null", ["script -c runs another command"])))
	"human_only" in codes(d)
	d.verdict == "deny"
}

# Human-only verbs, whatever the command word: each row is a line, and
# whether it carries a human-only verb (deny) or not (defer).
human_only_cases := [
	["loopx gate answer g-1 --option approve", true],
	["lx gate answer g-1 --option approve", true],
	["x --json gate answer g-1", true],
	["loopx --project /work/p gate answer g-1", true],
	["loopx --project=/work/p gate --json answer g-1", true],
	["loopx adopt r-1", true],
	["loopx doctor --accept-store", true],
	["loopx doctor --accept-store=true", true],
	["loopx --accept-store doctor", true],
	["loopx --prune-before 2026-01-01 events", true], # the flag's value comes first
	["loopx --goal g1 gate --json answer g-1", true],
	["ag dashboard", true], # kept: an unknown tool's first word
	["git log --author adopt", false],
	["go test -run adopt ./...", false],
	["python manage.py dashboard", false],
	["make -C web dashboard", false],
	["echo -n adopt", false],
	["loopx events --prune-before 2026-01-01", true],
	["loopx hooks uninstall --host claude-code", true],
	["loopx agent register bot --host other", true],
	["loopx dashboard", true],
	["mytool dashboard", true], # an unknown command word may be a renamed loopx
	["echo gate answer", true], # kept: a multi-word verb is never exempt
	["go run ./cmd/loopx gate answer g-1", true], # go run's package is the program
	["go run -race ./cmd/loopx adopt", true],
	["go run ./cmd/loopx status", false],
	["cargo run -- gate answer g-1", true],
	["cargo run --release -- adopt", true],
	["cargo run -- --help", false],
	["loopx doctor", false],
	["loopx events --goal g1", false],
	["loopx hooks install --host codex", false],
	["loopx agent list", false],
	["loopx gate list", false],
	["loopx gate raise --goal g1 --question why?", false],
	["git commit -m adopt", false],
	["git commit -m adopt x", false],
	["npm run dashboard", false],
	["cd dashboard", false],
	["make dashboard", false],
	["ls adopt", false],
	["grep -r dashboard .", false],
	["loopx gate show answer", false],
	["echo --accept-store", false],
]

test_human_only_verbs_whatever_the_command_word if {
	every c in human_only_cases {
		d := run(c[0])
		want := {true: "deny", false: "defer"}[c[1]]
		d.verdict == want

		# (a variable, not c[1] == ("human_only" in codes(d)): OPA v1.22's
		# formatter drops those parentheses, which changes the expression)
		hit := "human_only" in codes(d)
		c[1] == hit
	}
	run("./bin/lx adopt r-1").verdict == "deny"
	run("loopx adopt r-1").reasons[0] == {
		"code": "human_only", "message": "`loopx adopt r-1` runs `loopx adopt`, which only a human may run",
		"rule": "data.loopx.permission.human_only", "ref": "",
	}
}

test_human_only_exemption_needs_a_plain_tool_name if {
	# The engine reduces argv[0] to its base name: a path ending in the
	# tool's name, or a line that redefines names, is not exempt.
	lines := ["/tmp/x/make dashboard", "PATH=/tmp/x:$PATH && make dashboard", "alias make=loopx && make dashboard", "make() { loopx \"$@\"; } && make dashboard"]
	every line in lines {
		inp := object.union(req(bash(line)), {"permission": {"argvs": [["make", "dashboard"]], "commands": ["make dashboard"]}})
		"human_only" in codes(decide(inp))
	}
}

test_opaque_line_naming_a_human_only_verb_denies if {
	every line in [
		`sh -c "$(echo bG9vcHg=|base64 -d) adopt r-1"`,
		`python3 -c 'import os; os.system("lx hooks uninstall --host codex")'`,
		`eval "x dashboard"`,
		`bash -c "lx --json doctor --accept-store"`,
		`sh -c "$L g""ate 'answer' g-1"`,
		`eval "$L ag\ent register x"`,
	] {
		d := decide(req(opaque_bash(line, ["a command word built from a substitution"])))
		d.verdict == "deny"
		codes(d) == ["human_only"]
	}

	# Names inside paths or words are not verbs.
	d := decide(req(opaque_bash(`find src/dashboard -name '*.ts' -exec wc -l {} +`, ["find -exec runs other commands"])))
	codes(d) == ["command_opaque"]
}

# An opaque line whose reader reason names a verb the expansion may yield,
# or whose text names one behind escapes or expansion punctuation, denies.
test_opaque_verbs_behind_expansions_deny if {
	d1 := decide(req(opaque_bash("loopx doctor --accept-$X", ["loopx argument built from --accept-$X beside loopx verb words: it may run `doctor --accept-store`"])))
	d1.verdict == "deny"
	codes(d1) == ["human_only"]
	d2 := decide(req(opaque_bash("printf 'gate\\nanswer\\n' | xargs loopx", ["xargs runs a command with arguments read from its input"])))
	d2.verdict == "deny"
	d3 := decide(req(opaque_bash("loopx ${V:-adopt}", ["loopx argument built from ${V:-adopt}"])))
	d3.verdict == "deny"
	d4 := decide(req(opaque_bash("loopx \"$(echo gate)\" answer g-1", ["loopx argument built from \"$(echo gate)\""])))
	d4.verdict == "deny"
	d5 := decide(req(opaque_bash("make $TARGET", ["make argument built from $TARGET"])))
	d5.verdict == "ask"
}
