package loopx.permission_test

test_loopx_dirs_are_protected if {
	every p in ["loopx/loopx.cue", "loopx/policies/x.rego", ".loopx/state.db", ".loopx", "loopx", "LOOPX/loopx.cue", "."] {
		d := decide_spec(req({"paths": [path(p)]}), {"goals": {"g1": {"scope": {"write": ["**"]}}}})
		d.verdict == "deny"
		codes(d) == ["protected_path"]
	}
	write("loopx/loopx.cue").reasons[0].message == "loopx/loopx.cue is loopx's own (loopx/**, .loopx/**): agents may not write it"
}

test_loopx_named_files_elsewhere_are_not_protected if {
	write("docs/loopx/guide.md").verdict == "defer"
	write("docs/loopx.md").verdict == "defer"
}

test_symlink_into_loopx_is_protected if {
	d := decide(req({"paths": [object.union(path("docs/spec.cue"), {"resolved": "loopx/loopx.cue"})]}))
	codes(d) == ["protected_path", "outside_scope"]
	d.reasons[0].message == "docs/spec.cue (-> loopx/loopx.cue) is loopx's own (loopx/**, .loopx/**): agents may not write it"
}

test_a_path_containing_the_project_is_protected if {
	p := object.union(path("/home/dev"), {"outside_project": true, "contains_project": true, "via_command": true})
	d := decide(req({"tool": "Bash", "paths": [p]}))
	d.reasons == [{"code": "protected_path", "message": "/home/dev contains the project and loopx's own loopx/ and .loopx/", "rule": "data.loopx.permission.protected", "ref": ""}]
}

test_via_command_paths_only_check_protection_and_deny if {
	p := object.union(path("/tmp/out.txt"), {"outside_project": true, "via_command": true})
	decide(req({"tool": "Bash", "paths": [p, object.union(path("build.log"), {"via_command": true})]})).verdict == "defer"
	d := decide(req({"tool": "Bash", "paths": [object.union(path(".loopx/state.db"), {"via_command": true})]}))
	codes(d) == ["protected_path"]
}

# mention is a path-like word an opaque command names.
mention(p) := object.union(path(p), {"via_command": true, "mentioned": true})

test_an_opaque_line_naming_a_protected_path_denies if {
	line := "find loopx -name '*.cue' -exec sed -i s/a/b/ {} +"
	d := decide(req(object.union(opaque_bash(line, ["find -exec runs other commands"]), {"paths": [mention("loopx")]})))
	d.verdict == "deny"
	d.reasons == [{
		"code": "protected_path", "message": "`find loopx -name '*.cue' -exec sed -i s/a/b/ {} +` cannot be read and names loopx, loopx's own (loopx/**, .loopx/**)",
		"rule": "data.loopx.permission.protected", "ref": "",
	}]
	host := decide(req(object.union(opaque_bash("python3 -c x .claude/settings.json", ["x"]), {"paths": [mention(".claude/settings.json")]})))
	codes(host) == ["protected_path"]
	env := decide(req(object.union(opaque_bash("xargs cat .env", ["xargs runs other commands"]), {"paths": [mention(".env")]})))
	env.reasons == [{
		"code": "scope_denied", "message": "`xargs cat .env` cannot be read and names .env, which matches scope.deny pattern .env",
		"rule": "data.loopx.permission.scope_denied", "ref": "goals.g1.scope.deny",
	}]
}

test_host_settings_are_protected if {
	s := {"goals": {"g1": {"scope": {"write": ["**"]}}}}
	every p in [
		".claude/settings.json", ".claude/settings.local.json", ".codex/hooks.json", ".codex/config.toml",
		".mcp.json", ".claude", ".codex", "sub/.claude/settings.json", ".Claude/Settings.JSON",
	] {
		d := decide_spec(req({"paths": [path(p)]}), s)
		codes(d) == ["protected_path"]
	}
	d := decide_spec(req({"paths": [path(".mcp.json")]}), s)
	d.reasons[0].message == ".mcp.json is an agent host's hook or tool settings (.claude/settings*.json, .codex/hooks.json, .codex/config.toml, .mcp.json): agents may not write it"
	every p in [".claude/commands/review.md", ".claude/agents/a.md", "docs/claude-settings.json", ".codex-notes.md", ".codex/prompts/x.md"] {
		decide_spec(req({"paths": [path(p)]}), s).verdict == "defer"
	}
}

test_host_settings_in_the_home_and_through_commands_are_protected if {
	home := object.union(path("/home/dev/.codex/config.toml"), {"outside_project": true, "via_command": true})
	codes(decide(req({"tool": "Bash", "paths": [home]}))) == ["protected_path"]
	rm := object.union(path(".claude"), {"via_command": true})
	codes(decide(req(object.union(bash("rm -rf .claude"), {"paths": [rm]})))) == ["protected_path"]
	link := object.union(path("docs/h.json"), {"resolved": ".codex/hooks.json"})
	d := decide(req({"paths": [link]}))
	d.reasons[0].message == "docs/h.json (-> .codex/hooks.json) is an agent host's hook or tool settings (.claude/settings*.json, .codex/hooks.json, .codex/config.toml, .mcp.json): agents may not write it"
}

test_loopx_state_directory_is_protected if {
	anchor := object.union(path("/home/dev/.local/state/loopx/projects/p-1/serve.json"), {"outside_project": true, "via_command": true, "loopx_state": true})
	d := decide(req({"tool": "Bash", "paths": [anchor]}))
	codes(d) == ["protected_path"]
	d.reasons[0].message == "/home/dev/.local/state/loopx/projects/p-1/serve.json is in, or contains, loopx's state directory outside the project (each project's anchor: the chain head, the read model, a server's record, socket and token): agents may not write it"
	up := object.union(path("/home/dev/.local"), {"outside_project": true, "via_command": true, "loopx_state": true})
	codes(decide(req({"tool": "Bash", "paths": [up]}))) == ["protected_path"]
	named := object.union(path("/home/dev/.local/state/loopx"), {"outside_project": true, "via_command": true, "mentioned": true, "loopx_state": true})
	codes(decide(req(object.union(bash("python3 -c 'open(\"/home/dev/.local/state/loopx/x\",\"w\")'"), {"paths": [named]})))) == ["protected_path"]
	outside := object.union(path("/tmp/out.txt"), {"outside_project": true, "via_command": true})
	codes(decide(req({"tool": "Bash", "paths": [outside]}))) != ["protected_path"]
}

test_git_hooks_and_config_are_protected if {
	s := {"goals": {"g1": {"scope": {"write": ["**"]}}}}
	every p in [
		".git/hooks/pre-commit", ".git/hooks/x/y", ".git/config", ".git", ".git/hooks", ".GIT/CONFIG", ".git/info/exclude", ".git/config.worktree",
		".git/info/attributes", ".git/info", ".gitattributes", "docs/.gitattributes", ".git/modules/lib/config", ".git/modules/a/modules/b/config",
		".git/modules/lib/hooks/pre-commit", ".git/worktrees/w/config.worktree",
		".git/commondir", ".git/objects/info/alternates", ".git/remotes/origin", ".git/worktrees/w/commondir",
	] {
		codes(decide_spec(req({"paths": [path(p)]}), s)) == ["protected_path"]
	}
	decide_spec(req({"paths": [path(".git/config")]}), s).reasons[0].message == ".git/config is git's files that run code at the next git command, point git elsewhere or hide files from git (.git/hooks/**, .git/config, .git/config.worktree, .git/info/**, .git/commondir, .git/gitdir, .git/objects/info/alternates, .git/objects/info/http-alternates, .git/remotes/**, .git/branches/**, .git/worktrees/*/commondir, .git/worktrees/*/gitdir, .git/modules/**/config, .git/modules/**/hooks/**, .git/worktrees/*/config*, .git/rebase-merge/**, .git/rebase-apply/**, .git/sequencer/**, .gitattributes, .gitmodules, .husky/**, .pre-commit-config.yaml, lefthook.yml, .lefthook.yml, lefthook-local.yml, .lefthook/**): agents may not write it"
	decide_spec(req({"paths": [path(".git")]}), s).reasons[0].message == ".git contains git's files that run code at the next git command, point git elsewhere or hide files from git (.git/hooks/**, .git/config, .git/config.worktree, .git/info/**, .git/commondir, .git/gitdir, .git/objects/info/alternates, .git/objects/info/http-alternates, .git/remotes/**, .git/branches/**, .git/worktrees/*/commondir, .git/worktrees/*/gitdir, .git/modules/**/config, .git/modules/**/hooks/**, .git/worktrees/*/config*, .git/rebase-merge/**, .git/rebase-apply/**, .git/sequencer/**, .gitattributes, .gitmodules, .husky/**, .pre-commit-config.yaml, lefthook.yml, .lefthook.yml, lefthook-local.yml, .lefthook/**): agents may not write it"
	every p in [".git/COMMIT_EDITMSG", ".gitignore", "docs/.git-notes", "sub/.git/config", ".git/modules/lib/index"] {
		decide_spec(req({"paths": [path(p)]}), s).verdict == "defer"
	}
}

test_host_setting_directories_are_containers if {
	s := {"goals": {"g1": {"scope": {"write": ["**"]}}}}
	d := decide_spec(req({"paths": [path("sub/.claude")]}), s)
	d.reasons[0].message == "sub/.claude contains an agent host's hook or tool settings (.claude/settings*.json, .codex/hooks.json, .codex/config.toml, .mcp.json): agents may not write it"
}

# The user's host settings in the home directory (p.home are the home-relative names).
home_path(p, h) := object.union(path(p), {"outside_project": true, "via_command": true, "home": [h]})

test_user_level_host_settings_are_protected if {
	every c in [
		["/root/.claude/settings.json", ".claude/settings.json"], ["/root/.claude/settings.local.json", ".claude/settings.local.json"],
		["/root/.claude.json", ".claude.json"], ["/root/.codex/config.toml", ".codex/config.toml"], ["/root/.codex/hooks.json", ".codex/hooks.json"],
		["/root", "."], ["/root/.claude", ".claude"], ["/root/.codex", ".codex"],
	] {
		codes(decide(req({"tool": "Bash", "paths": [home_path(c[0], c[1])]}))) == ["protected_path"]
	}
	d := decide(req({"tool": "Bash", "paths": [home_path("/root/.claude.json", ".claude.json")]}))
	startswith(d.reasons[0].message, "/root/.claude.json (~/.claude.json) is user-level agent host settings or files that run the human's next command (~/.claude/settings*.json, ~/.claude.json, ~/.codex/config.toml, ~/.codex/hooks.json, ~/.gitconfig, ")
	endswith(d.reasons[0].message, ", ~/.config/loopx/**, ~/.claude/settings.local.json): agents may not write it")
	d2 := decide(req({"tool": "Bash", "paths": [home_path("/root", ".")]}))
	startswith(d2.reasons[0].message, "/root (~) contains user-level agent host settings or files that run the human's next command (~/.claude/settings*.json, ")

	# A directory containing the home.
	up := object.union(path("/"), {"outside_project": true, "via_command": true, "contains_home": true})
	startswith(decide(req({"tool": "Bash", "paths": [up]})).reasons[0].message, "/ contains the user's home directory and its user-level agent host settings or files that run the human's next command (~/.claude/settings*.json, ")

	# Other files of the home are not protected; an opaque line naming only the home asks.
	every h in [".claude/commands/x.md", ".codex/prompts/p.md", ".claude.json.bak", "src/.claude.json"] {
		decide(req({"tool": "Bash", "paths": [home_path(concat("/", ["/root", h]), h)]})).verdict == "defer"
	}
	m := object.union(home_path("/root", "."), {"mentioned": true})
	codes(decide(req(object.union(opaque_bash("xargs rm -rf ~", ["xargs runs other commands"]), {"paths": [m]})))) == ["command_opaque"]
}

# The files that make the human's next command run an agent's code are
# protected: git's user config and attributes, shell start-up files, direnv,
# VS Code tasks, systemd user units, ssh's config, bin directories early
# in PATH, loopx's own user config.
test_files_run_by_the_next_command_are_protected if {
	s := {"goals": {"g1": {"scope": {"write": ["**"]}}}}
	every p in [".envrc", "sub/.envrc", ".vscode/tasks.json", "web/.vscode/tasks.json"] {
		codes(decide_spec(req({"paths": [path(p)]}), s)) == ["protected_path"]
	}
	decide_spec(req({"paths": [path(".envrc")]}), s).reasons[0].message == ".envrc is a file the human's tools run on their own (.envrc, .vscode/tasks.json): agents may not write it"
	decide_spec(req({"paths": [path(".vscode/settings.json")]}), s).verdict == "defer"
	every c in [
		[".gitconfig"], [".config/git/config"], [".config/git/attributes"], [".bashrc"], [".zshrc"], [".profile"],
		[".config/systemd/user/agent.service"], [".ssh/config"], [".local/bin/git"], ["bin/git"], [".config/loopx/config.json"],
	] {
		codes(decide(req({"tool": "Bash", "paths": [home_path(concat("/", ["/root", c[0]]), c[0])]}))) == ["protected_path"]
	}
	decide(req({"tool": "Bash", "paths": [home_path("/root/notes.txt", "notes.txt")]})).verdict == "defer"
}
