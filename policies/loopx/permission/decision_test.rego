package loopx.permission_test

import data.loopx.permission

spec := {"goals": {"g1": {
	"objective": "Ship v2",
	"scope": {
		"write": ["api/**", "docs/**", "**/*_test.go", "./cmd/*/main.go"],
		"deny": [".env", "secrets/**", "api/**/gen/**"],
		"commands": {"allow": [], "ask": ["git push*", "npm publish*"], "deny": ["git push --force*", "rm -rf /*"]},
	},
}}}

base := {
	"query": "permission", "now": "2026-11-29T10:00:00Z", "goal": "g1", "agent": "claude",
	"health": {"store": "", "spec": "", "policy": ""},
	"state": {"agent": {"id": "claude", "known": true, "on_goal": true}, "gates": []},
	"permission": {"tool": "Edit", "action": "fs.write", "actions": ["fs.write"], "paths": [], "command": "", "commands": [], "command_parsed": true},
}

# req returns base with patch merged into input.permission.
req(patch) := object.union(base, {"permission": patch})

path(p) := {"path": p, "resolved": p, "outside_project": false, "symlink_outside": false, "via_command": false}

write(p) := decide(req({"paths": [path(p)]}))

run(c) := decide(req({"tool": "Bash", "action": "shell.exec", "actions": ["shell.exec"], "command": c, "commands": [c]}))

decide(inp) := decide_spec(inp, spec)

decide_spec(inp, s) := d if {
	d := permission.decision with input as inp with data.loopx.spec as s
}

codes(d) := [r.code | some r in d.reasons]

test_in_scope_write_allows if {
	d := write("api/v2/handlers.go")
	d == {
		"verdict": "allow", "allow": true, "todo": null, "next_check_at": null, "charge": false,
		"reasons": [{
			"code": "permitted", "message": "Edit permitted: no scope, gate or protection rule objects",
			"rule": "data.loopx.permission.decision", "ref": "goals.g1.scope",
		}],
	}
}

test_empty_input_denies_and_is_defined if {
	d := permission.decision with input as {}
	d.verdict == "deny"
	"bad_request" in codes(d)
}

test_health_errors_deny if {
	d := decide(object.union(base, {"health": {"store": "invalid database"}}))
	d.verdict == "deny"
	d.reasons[0] == {"code": "store_error", "message": "store unusable: invalid database", "rule": "data.loopx.permission.health", "ref": ""}
}

test_malformed_path_denies if {
	codes(decide(req({"paths": [{"resolved": "x"}]}))) == ["bad_request"]
}

test_unknown_goal_agent_and_not_on_goal_deny if {
	codes(decide(object.union(base, {"goal": "g9"}))) == ["unknown_goal"]
	codes(decide(object.union(base, {"state": {"agent": {"known": false}}}))) == ["unknown_agent"]
	codes(decide(object.union(base, {"state": {"agent": {"on_goal": false}}}))) == ["agent_not_on_goal"]
}

test_loopx_dirs_are_protected if {
	every p in ["loopx/loopx.cue", "loopx/policies/x.rego", ".loopx/state.db", ".loopx", "loopx", "LOOPX/loopx.cue", "."] {
		d := decide_spec(req({"paths": [path(p)]}), {"goals": {"g1": {"scope": {"write": ["**"]}}}})
		d.verdict == "deny"
		codes(d) == ["protected_path"]
	}
	write("loopx/loopx.cue").reasons[0].message == "loopx/loopx.cue is loopx's own (loopx/**, .loopx/**): agents may not write it"
}

test_loopx_named_files_elsewhere_are_not_protected if {
	write("docs/loopx/guide.md").verdict == "allow"
	write("docs/loopx.md").verdict == "allow"
}

test_symlink_into_loopx_is_protected if {
	d := decide(req({"paths": [object.union(path("docs/spec.cue"), {"resolved": "loopx/loopx.cue"})]}))
	codes(d) == ["protected_path", "outside_scope"]
	d.reasons[0].message == "docs/spec.cue (-> loopx/loopx.cue) is loopx's own (loopx/**, .loopx/**): agents may not write it"
}

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

test_empty_scope_write_allows_anywhere_inside if {
	decide_spec(req({"paths": [path("README.md")]}), {"goals": {"g1": {}}}).verdict == "allow"
}

test_glob_doublestar_semantics if {
	write("docs/a.md").verdict == "allow"
	write("docs/x/y.md").verdict == "allow"
	write("docs").verdict == "deny" # docs/** is below docs, not docs itself
	write("docs/.hidden").verdict == "allow" # dotfiles match like any file
	write("main_test.go").verdict == "allow" # **/ matches zero directories
	write("a/b/c_test.go").verdict == "allow"
	write("cmd/loopx/main.go").verdict == "allow" # ./ is ignored, * is one segment
	write("cmd/a/b/main.go").verdict == "deny" # * does not cross /
	write("docsx/a.md").verdict == "deny"
	codes(write(".env")) == ["scope_denied", "outside_scope"]
	write("config/.env").reasons[0].code == "outside_scope" # patterns are anchored
}

test_glob_match_edges if {
	permission.glob_match("**", "a/b/.c")
	permission.glob_match("**", ".env")
	permission.glob_match("*", ".env")
	not permission.glob_match("*", "a/b")
	permission.glob_match("a/**/b", "a/b")
	permission.glob_match("a/**/b", "a/x/y/b")
	not permission.glob_match("a/**/b", "ab")
	permission.glob_match("**/x/**", "x/y")
	not permission.glob_match("docs/**", "docs")
	permission.glob_match("docs/*.md", "docs/a.md")
	not permission.glob_match("docs/*.md", "docs/x/a.md")
	permission.glob_match("src/[ab].go", "src/a.go")
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
	run("go test ./...").verdict == "allow"
	run("git push origin feature/v2.1").verdict == "ask" # * matches / and .
}

test_command_segments_are_matched if {
	d := decide(req({"tool": "Bash", "command": "make && GIT_TRACE=1 git push", "commands": ["make", "git push"]}))
	d.verdict == "ask"
	d.reasons[0].message == "`git push` matches scope.commands.ask pattern git push*"
}

test_command_allow_list_asks_for_the_rest if {
	s := {"goals": {"g1": {"scope": {"commands": {"allow": ["go test*", "make"]}}}}}
	decide_spec(req({"command": "go test ./... && make", "commands": ["go test ./...", "make"]}), s).verdict == "allow"
	d := decide_spec(req({"command": "go test ./... && curl x", "commands": ["go test ./...", "curl x"]}), s)
	d.verdict == "ask"
	codes(d) == ["command_not_allowed"]
	decide_spec(req({"command": "curl x"}), s).verdict == "ask"
}

test_unparsed_command_asks if {
	codes(decide(req({"command": "echo 'x", "commands": [], "command_parsed": false}))) == ["command_unparsed"]
}

test_self_answer_forbidden if {
	d := decide(req({"tool": "Bash", "command": "./loopx gate answer g-1 --option approve", "actions": ["loopx.gate.answer"]}))
	d.verdict == "deny"
	d.reasons[0] == {
		"code": "self_answer_forbidden", "message": "`loopx gate answer` is for a gate's answerers, never for an agent's tool call",
		"rule": "data.loopx.permission.self_answer", "ref": "",
	}
	# Without the engine's parsing, the raw line still gives it away.
	codes(decide(req({"command": "env X=1 loopx --json gate  answer g-1"}))) == ["self_answer_forbidden"]
	decide(req({"command": "loopx gate list; echo answer"})).verdict == "allow"
}

gate := {
	"id": "ship-v2/merge", "question": "Merge the v2 branch into main?", "options": ["approve", "reject"],
	"scope": {"kind": "action"}, "guards": ["git.merge", "git.push", "npm publish*"],
}

test_open_gate_guarding_the_action_denies if {
	inp := object.union(req({"tool": "Bash", "action": "git.push", "actions": ["shell.exec", "git.push"], "command": "git push", "commands": ["git push"]}), {"state": {"gates": [gate]}})
	d := decide(inp)
	d.verdict == "deny"
	codes(d) == ["gate_open"] # a deny shows the deny reasons only
	d.reasons[0] == {
		"code": "gate_open", "message": "gate ship-v2/merge is open: Merge the v2 branch into main? (git.push waits for its answer)",
		"rule": "data.loopx.permission.gate_open", "ref": "gate ship-v2/merge",
	}
}

test_gate_guard_may_be_a_command_pattern if {
	inp := object.union(req({"command": "npm publish --tag next", "commands": ["npm publish --tag next"]}), {"state": {"gates": [gate]}})
	codes(decide(inp)) == ["gate_open"]
}

test_gate_guarding_other_actions_does_not_deny if {
	inp := object.union(req({"paths": [path("api/x.go")]}), {"state": {"gates": [gate, "junk"]}})
	decide(inp).verdict == "allow"
}

test_a_path_containing_the_project_is_protected if {
	p := object.union(path("/home/dev"), {"outside_project": true, "contains_project": true, "via_command": true})
	d := decide(req({"tool": "Bash", "paths": [p]}))
	d.reasons == [{"code": "protected_path", "message": "/home/dev contains the project and loopx's own loopx/ and .loopx/", "rule": "data.loopx.permission.protected", "ref": ""}]
}

test_via_command_paths_only_check_protection_and_deny if {
	p := object.union(path("/tmp/out.txt"), {"outside_project": true, "via_command": true})
	decide(req({"tool": "Bash", "paths": [p, object.union(path("build.log"), {"via_command": true})]})).verdict == "allow"
	d := decide(req({"tool": "Bash", "paths": [object.union(path(".loopx/state.db"), {"via_command": true})]}))
	codes(d) == ["protected_path"]
}

test_user_deny if {
	d := decide(base) with data.loopx.user.permission.deny as {{"code": "freeze", "message": "release freeze"}, "no"}
	codes(d) == ["user_policy", "freeze"]
	d.reasons[0] == {"code": "user_policy", "message": "no", "rule": "data.loopx.user.permission.deny", "ref": ""}
}

test_user_warn_is_added_to_any_verdict if {
	d := decide(base) with data.loopx.user.permission.warn as {"touching api/ needs a changelog entry"}
	d.verdict == "allow"
	codes(d) == ["permitted", "user_warning"]
}

test_goal_wide_gate_denies_every_tool_call if {
	g := {"id": "g-1", "question": "Is the migration safe to run now?", "scope": {"kind": "goal", "agents": [], "todos": []}, "guards": []}
	inp := object.union(req({"paths": [path("api/v2/handlers.go")]}), {"state": {"gates": [g]}})
	d := decide(inp)
	codes(d) == ["gate_open"]
	d.verdict == "deny"
}

test_agent_gate_denies_only_that_agent if {
	g := {"id": "g-2", "question": "May claude keep editing today?", "scope": {"kind": "agent", "agents": ["someone-else"], "todos": []}, "guards": []}
	inp := object.union(req({"paths": [path("api/v2/handlers.go")]}), {"state": {"gates": [g]}})
	d := decide(inp)
	d.verdict == "allow"
}

test_peer_agent_may_answer_as_itself if {
	run("loopx gate answer api/review --option approve --as agent:claude").verdict == "allow"
}

test_answering_as_another_agent_or_a_human_is_refused if {
	"self_answer_forbidden" in codes(run("loopx gate answer api/review --option approve --as agent:codex"))
	"self_answer_forbidden" in codes(run("loopx gate answer api/review --option approve"))
	"self_answer_forbidden" in codes(run("script -qec 'loopx gate answer g-1 --option approve --as agent:claude' /dev/null"))
}
