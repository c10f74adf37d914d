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
	"state": {"agent": {"id": "claude", "known": true, "goals": []}, "gates": []},
	"permission": {"tool": "Edit", "action": "fs.write", "actions": ["fs.write"], "paths": [], "command": "", "commands": [], "command_parsed": true},
}

# req returns base with patch merged into input.permission.
req(patch) := object.union(base, {"permission": patch})

path(p) := {"path": p, "resolved": p, "outside_project": false, "symlink_outside": false, "via_command": false}

write(p) := decide(req({"paths": [path(p)]}))

# run decides a one-command Bash line the engine read as readable (argv split on spaces).
run(c) := decide(req(bash(c)))

# bash is a Bash request for a readable line of simple commands separated by " && ".
bash(line) := {
	"tool": "Bash", "action": "shell.exec", "actions": ["shell.exec"], "command": line,
	"commands": cmds, "argvs": [split(c, " ") | some c in cmds], "opaque": [], "command_parsed": true,
} if cmds := split(line, " && ")

# opaque_bash is a Bash request for a line the engine marks opaque.
opaque_bash(line, reasons) := object.union(bash(line), {"opaque": reasons})

decide(inp) := decide_spec(inp, spec)

# decide_spec decides under spec s with no user policy: the built-in
# rules' tests pass beside any user policies (`opa test` over both).
decide_spec(inp, s) := decide_user(inp, s, {})

# decide_user decides under spec s with user policies u (data.loopx.user).
decide_user(inp, s, u) := d if {
	d := permission.decision with input as inp with data.loopx.spec as s with data.loopx.user as u
}

codes(d) := [r.code | some r in d.reasons]

test_in_scope_write_without_a_grant_defers if {
	d := write("api/v2/handlers.go")
	d == {
		"verdict": "defer", "allow": false, "todo": null, "next_check_at": null, "charge": false,
		"reasons": [{
			"code": "no_grant", "message": "Edit: no rule objects and no scope.grant matches; the host's own permission flow decides",
			"rule": "data.loopx.permission.decision", "ref": "goals.g1.scope.grant",
		}],
	}
}

test_empty_input_denies_and_is_defined if {
	d := permission.decision with input as {} with data.loopx.user as {}
	d.verdict == "deny"
	"bad_request" in codes(d)
}

test_health_errors_deny if {
	d := decide(object.union(base, {"health": {"store": "invalid database"}}))
	d.verdict == "deny"
	d.reasons[0] == {"code": "store_error", "message": "store unusable: invalid database", "rule": "data.loopx.permission.health", "ref": ""}
}

# An unusable store knows no registration: the deny is the store's alone,
# not also a false unknown_agent.
test_health_error_alone_names_the_fault if {
	codes(decide(object.union(base, {"health": {"store": "refused"}, "state": {"agent": {"known": false}}}))) == ["store_error"]
}

test_malformed_path_denies if {
	codes(decide(req({"paths": [{"resolved": "x"}]}))) == ["bad_request"]
}

test_unknown_goal_agent_and_not_on_goal_deny if {
	codes(decide(object.union(base, {"goal": "g9"}))) == ["unknown_goal"]
	codes(decide(object.union(base, {"state": {"agent": {"known": false}}}))) == ["unknown_agent"]
	codes(decide_spec(base, object.union(spec, {"goals": {"g1": {"agents": ["codex"]}}}))) == ["agent_not_on_goal"]
}

test_user_deny if {
	d := decide_user(base, spec, {"permission": {"deny": {{"code": "freeze", "message": "release freeze"}, "no"}}})
	codes(d) == ["user_policy", "freeze"]
	d.reasons[0] == {"code": "user_policy", "message": "no", "rule": "data.loopx.user.permission.deny", "ref": ""}
}

test_user_warn_is_added_to_any_verdict if {
	d := decide_user(base, spec, {"permission": {"warn": {"touching api/ needs a changelog entry"}}})
	d.verdict == "defer"
	codes(d) == ["no_grant", "user_warning"]
}
