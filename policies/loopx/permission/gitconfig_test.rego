package loopx.permission_test

# What the git configuration names is protected like git's own hooks and
# config: the hooks directory core.hooksPath names (here docs/hooks/, as Go
# gives it in git_config_paths), and a file an include names, in the
# project or outside it; without the configuration, the same paths are
# not git's.
configured := ["docs/hooks/**", "/home/u/.gitconfig.local"]

configured_write(p) := decide(req({"paths": [path(p)], "git_config_paths": configured}))

test_the_configured_hooks_directory_is_protected if {
	d := configured_write("docs/hooks/pre-commit")
	d.verdict == "deny"
	codes(d) == ["protected_path"]
	contains(d.reasons[0].message, "docs/hooks/pre-commit is git's files that run code at the next git command")
	contains(d.reasons[0].message, "docs/hooks/**")
	write("docs/hooks/pre-commit").verdict == "defer"
}

test_removing_the_configured_hooks_directory_is_protected if {
	configured_write("docs/hooks").verdict == "deny"
	configured_write("docs").verdict == "deny"
}

test_an_included_config_file_is_protected if {
	d := decide(req({"paths": [object.union(path("/home/u/.gitconfig.local"), {"outside_project": true, "via_command": true})], "git_config_paths": configured}))
	codes(d) == ["protected_path"]
}

test_hook_managers_files_are_protected if {
	every p in ["docs/.husky/pre-commit", "docs/.husky/_/h", "docs/.pre-commit-config.yaml", "docs/lefthook.yml", "docs/.lefthook/pre-commit/x.sh"] {
		codes(write(p)) == ["protected_path"]
	}
}

test_gitmodules_and_a_rebase_todo_are_protected if {
	codes(write("docs/.gitmodules")) == ["protected_path"]
	codes(write(".gitmodules")) == ["protected_path", "outside_scope"]
	codes(write(".git/rebase-merge/git-rebase-todo")) == ["protected_path", "outside_scope"]
}
