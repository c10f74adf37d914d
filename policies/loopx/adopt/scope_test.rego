package loopx.adopt_test

# The empty or removed restriction lists mean "no restriction": emptying
# or removing any of them loosens (the attack this rule was rewritten for).
test_empty_or_removed_restriction_loosens if {
	cases := [
		[patched({"/goals/g1/agents": []}), "goals.g1.agents", "goals.g1.agents: [a1] → [] (every agent): loosens"],
		[removed(["/goals/g1/agents"]), "goals.g1.agents", "goals.g1.agents: [a1] → [] (every agent): loosens"],
		[patched({"/goals/g1/scope/write": []}), "goals.g1.scope.write", "goals.g1.scope.write: [api/**, docs/readme.md] → [] (anywhere): loosens"],
		[removed(["/goals/g1/scope/write"]), "goals.g1.scope.write", "goals.g1.scope.write: [api/**, docs/readme.md] → [] (anywhere): loosens"],
		[patched({"/goals/g1/scope/commands/allow": []}), "goals.g1.scope.commands.allow", "goals.g1.scope.commands.allow: [go *, git status] → [] (any command): loosens"],
		[removed(["/goals/g1/scope/commands/allow"]), "goals.g1.scope.commands.allow", "goals.g1.scope.commands.allow: [go *, git status] → [] (any command): loosens"],
		[removed(["/goals/g1/scope/commands"]), "goals.g1.scope.commands.allow", "goals.g1.scope.commands.allow: [go *, git status] → [] (any command): loosens"],
		[removed(["/goals/g1/scope"]), "goals.g1.scope.write", "goals.g1.scope.write: [api/**, docs/readme.md] → [] (anywhere): loosens"],
	]
	every c in cases {
		d := decide(base, c[0])
		d.verdict == "pending"
		some r in d.loosens
		r.ref == c[1]
		r.message == c[2]
	}
}

# An empty restriction list made non-empty is a narrowing.
test_restriction_set_where_there_was_none_tightens if {
	o := patched({"/goals/g1/agents": [], "/goals/g1/scope/write": [], "/goals/g1/scope/commands/allow": []})
	n := patched({"/goals/g1/agents": ["a1"], "/goals/g1/scope/write": ["src/**"], "/goals/g1/scope/commands/allow": ["make*"]})
	d := decide(o, n)
	d.verdict == "adopt"
	tight_refs(d) == {"goals.g1.agents", "goals.g1.scope.write", "goals.g1.scope.commands.allow"}
	[r.message | some r in d.tightens; r.ref == "goals.g1.agents"] == ["goals.g1.agents: [] → [a1] (was every agent): tightens"]
}

test_write_everywhere_to_a_directory_tightens if {
	o := patched({"/goals/g1/scope/write": ["**"]})
	n := patched({"/goals/g1/scope/write": ["src/**"]})
	decide(o, n).verdict == "adopt"
	decide(n, o).verdict == "pending"
}

test_deny_covers_directories_too if {
	# secrets/** covers the directory secrets itself (rm -rf secrets): a
	# deny of the file "secrets" is kept by it, and a deny of a/b/c is not
	# kept by **/c (which does not cover the directory a).
	decide(patched({"/goals/g1/scope/deny": ["loopx/**", "secrets"]}), base).verdict == "adopt"
	decide(patched({"/goals/g1/scope/deny": ["a/b/c"]}), patched({"/goals/g1/scope/deny": ["**/c"]})).verdict == "pending"
	decide(patched({"/goals/g1/scope/deny": ["a/b/c"]}), patched({"/goals/g1/scope/deny": ["a/**"]})).verdict == "adopt"
}

write_narrows(o, n) if decide(patched({"/goals/g1/scope/write": [o]}), patched({"/goals/g1/scope/write": [n]})).verdict == "adopt"

allow_narrows(o, n) if decide(patched({"/goals/g1/scope/commands/allow": [o]}), patched({"/goals/g1/scope/commands/allow": [n]})).verdict == "adopt"

test_glob_containment if {
	write_narrows("src/**", "src/a.go")
	write_narrows("src/**", "./src/**/x")
	write_narrows("**", "anything/*")
	not write_narrows("src/**", "src")
	not write_narrows("src/**", "src2/a")
	not write_narrows("s*c/**", "src/a")
	not write_narrows("src/*", "src/**")
	allow_narrows("go *", "go test ./...")
	allow_narrows("git.push", "git.push")
	not allow_narrows("git*", "git.push")
	not allow_narrows("go *", "go")
	not allow_narrows("go [t]*", "go test")
}
