package loopx.permission_test

test_outside_project_denies if {
	d := decide(req({"paths": [object.union(path("/home/dev/.ssh/config"), {"outside_project": true})]}))
	d.reasons == [{"code": "outside_project", "message": "/home/dev/.ssh/config is outside the project", "rule": "data.loopx.permission.outside", "ref": ""}]
}

test_symlink_outside_denies if {
	p := object.union(path("docs/link.md"), {"resolved": "/etc/passwd", "symlink_outside": true})
	d := decide(req({"paths": [p]}))
	codes(d) == ["symlink_outside"]
	d.reasons[0].message == "docs/link.md resolves through a symlink to /etc/passwd, outside the project"
}

test_scope_deny_beats_write if {
	d := write("secrets/prod.key")
	codes(d) == ["scope_denied", "outside_scope"]
	d.reasons[0].message == "secrets/prod.key matches scope.deny pattern secrets/**"
	d.reasons[0].ref == "goals.g1.scope.deny"
	codes(write("api/v2/gen/types.go")) == ["scope_denied"]
	codes(write("api/gen/types.go")) == ["scope_denied"]
}

test_outside_scope_denies if {
	d := write("README.md")
	d.reasons == [{
		"code": "outside_scope", "message": "README.md is outside scope.write api/**, docs/**, **/*_test.go, ./cmd/*/main.go",
		"rule": "data.loopx.permission.outside_scope", "ref": "goals.g1.scope.write",
	}]
}

test_empty_scope_write_objects_nowhere_inside if {
	decide_spec(req({"paths": [path("README.md")]}), {"goals": {"g1": {}}}).verdict == "defer"
}

test_glob_doublestar_semantics if {
	write("docs/a.md").verdict == "defer"
	write("docs/x/y.md").verdict == "defer"
	write("docs").verdict == "deny" # docs/** is below docs, not docs itself
	write("docs/.hidden").verdict == "defer" # dotfiles match like any file
	write("main_test.go").verdict == "defer" # **/ matches zero directories
	write("a/b/c_test.go").verdict == "defer"
	write("cmd/loopx/main.go").verdict == "defer" # ./ is ignored, * is one segment
	write("cmd/a/b/main.go").verdict == "deny" # * does not cross /
	write("docsx/a.md").verdict == "deny"
	codes(write(".env")) == ["scope_denied", "outside_scope"]
	write("config/.env").reasons[0].code == "outside_scope" # patterns are anchored
}

test_traversal_is_decided_on_the_normalised_path if {
	# The engine cleans "api/../loopx/loopx.cue" to loopx/loopx.cue and
	# "api/../../x" to an outside path before the policy sees them.
	codes(write("loopx/loopx.cue")) == ["protected_path", "outside_scope"]
}

test_command_ask_and_deny if {
	d := run("git push origin main")
	d.verdict == "ask"
	d.reasons == [{
		"code": "command_ask", "message": "`git push origin main` matches scope.commands.ask pattern git push*",
		"rule": "data.loopx.permission.command_ask", "ref": "goals.g1.scope.commands.ask",
	}]
	dd := run("git push --force origin main")
	dd.verdict == "deny"
	codes(dd) == ["command_denied"]
	run("go test ./...").verdict == "defer"
	run("git push origin feature/v2.1").verdict == "ask" # * matches / and .
}

test_command_segments_are_matched if {
	d := decide(req({"tool": "Bash", "command": "make && GIT_TRACE=1 git push", "commands": ["make", "git push"]}))
	d.verdict == "ask"
	d.reasons[0].message == "`git push` matches scope.commands.ask pattern git push*"
}

test_command_allow_list_asks_for_the_rest if {
	s := {"goals": {"g1": {"scope": {"commands": {"allow": ["go test*", "make"]}}}}}
	decide_spec(req(bash("go test ./... && make")), s).verdict == "defer" # a restriction, not a grant
	d := decide_spec(req(bash("go test ./... && curl x")), s)
	d.verdict == "ask"
	codes(d) == ["command_not_allowed"]
	d.reasons[0].message == "`curl x` matches no scope.commands.allow pattern"
	decide_spec(req({"command": "curl x", "commands": ["curl x"]}), s).verdict == "ask"
}

test_scope_commands_opaque_deny if {
	s := {"goals": {"g1": {"scope": {"commands": {"opaque": "deny"}}}}}
	d := decide_spec(req(opaque_bash("python3 -c 'print(1)'", ["an interpreter with inline code", "x"])), s)
	d.verdict == "deny"
	d.reasons[0].message == "`python3 -c 'print(1)'` cannot be read safely (an interpreter with inline code; x): a human decides"
	codes(d) == ["command_opaque"]
	decide_spec(req(opaque_bash("python3 -c 'print(1)'", ["x"])), {"goals": {"g1": {"scope": {"commands": {"opaque": "ask"}}}}}).verdict == "ask"
	decide_spec(req(bash("python3 x.py")), s).verdict == "defer"
}

test_mentioned_paths_are_not_held_to_scope_or_the_project if {
	tmp := object.union(mention("/tmp/x"), {"outside_project": true})
	root := object.union(mention("/"), {"outside_project": true, "contains_project": true})
	inp := req(object.union(opaque_bash("find . / /tmp/x README.md -exec true {} +", ["find -exec runs other commands"]), {"paths": [mention("."), tmp, root, mention("README.md")]}))
	d := decide(inp)
	d.verdict == "ask"
	codes(d) == ["command_opaque"]

	# A written (not only named) root still denies (and contains secrets/**).
	codes(decide(req({"tool": "Bash", "paths": [object.union(path("."), {"via_command": true})]}))) == ["protected_path", "scope_denied"]
}

# A plumbing push carries git.push: command patterns also match the action's canonical command.
test_plumbing_push_matches_git_push_patterns if {
	every line in ["git send-pack origin main", "git subtree push --prefix=d origin main", "git lfs push origin", "git http-push https://h/r main"] {
		d := decide(req(object.union(bash(line), {"actions": ["shell.exec", "git.push"]})))
		d.verdict == "ask"
		d.reasons == [{
			"code": "command_ask", "message": $"`{line}` is a `git push` (action git.push), which matches scope.commands.ask pattern git push*",
			"rule": "data.loopx.permission.command_ask", "ref": "goals.g1.scope.commands.ask",
		}]
	}

	# A deny pattern on the canonical command denies too; a plain push keeps its own message.
	s := {"goals": {"g1": {"scope": {"commands": {"deny": ["git push*"]}}}}}
	decide_spec(req(object.union(bash("git send-pack origin main"), {"actions": ["shell.exec", "git.push"]})), s).verdict == "deny"
	run("git push origin main").reasons[0].message == "`git push origin main` matches scope.commands.ask pattern git push*"

	# Actions without a canonical command (shell.exec) add nothing.
	run("git status").verdict == "defer"
}

# A scope.deny glob also covers a directory that contains a match.
test_scope_deny_covers_a_directory_containing_a_denied_path if {
	every n in ["secrets", "api", "api/v2/gen"] {
		d := decide(req({"tool": "Bash", "paths": [object.union(path(n), {"via_command": true})]}))
		codes(d) == ["scope_denied"]
	}
	d := decide(req({"tool": "Bash", "paths": [object.union(path("secrets"), {"via_command": true})]}))
	d.reasons[0].message == "secrets contains paths matching scope.deny pattern secrets/**"

	# Tool paths alike; the directory's own glob match keeps its message.
	codes(write("secrets")) == ["scope_denied", "outside_scope"]
	write("secrets/k").reasons[0].message == "secrets/k matches scope.deny pattern secrets/**"

	# A name below a ** segment, or a sibling, is not a container.
	every n in ["api/v2", "secretsx", "docs", "api/v2/handlers.go"] {
		not "scope_denied" in codes(decide(req({"tool": "Bash", "paths": [object.union(path(n), {"via_command": true})]})))
	}
	s := {"goals": {"g1": {"scope": {"deny": ["**/*.pem"]}}}}
	decide_spec(req({"tool": "Bash", "paths": [object.union(path("src"), {"via_command": true})]}), s).verdict == "defer"
}
