package loopx.permission_test

test_unparsed_command_is_opaque_and_asks if {
	d := decide(req({"tool": "Bash", "command": "echo 'x", "commands": [], "command_parsed": false}))
	d.verdict == "ask"
	d.reasons == [{
		"code": "command_opaque", "message": "`echo 'x` cannot be read safely (it does not parse): a human decides",
		"rule": "data.loopx.permission.command_opaque", "ref": "goals.g1.scope.commands.opaque",
	}]
}

test_defer_names_the_call if {
	d := decide(req({"tool": "", "action": "", "actions": [], "command": "git status", "commands": ["git status"], "argvs": [["git", "status"]]}))
	d.reasons[0].message == "`git status`: no rule objects and no scope.grant matches; the host's own permission flow decides"
	decide(req({"tool": "", "action": "", "actions": []})).reasons[0].message == "the call: no rule objects and no scope.grant matches; the host's own permission flow decides"
}

test_unparsed_line_with_the_readers_reason_says_it_once if {
	d := decide(req({"tool": "Bash", "command": "echo 'x", "commands": [], "command_parsed": false, "opaque": ["the line does not parse: 1:6: reached EOF without closing quote '"]}))
	d.reasons[0].message == "`echo 'x` cannot be read safely (the line does not parse: 1:6: reached EOF without closing quote '): a human decides"
}
