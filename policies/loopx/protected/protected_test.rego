package loopx.protected_test

import data.loopx.protected

all_globs := array.flatten([protected.own, protected.hosts, protected.git, protected.next_command, protected.home, protected.secrets])

# Names are compared lower-cased: an upper-case glob would never match.
test_globs_are_lower_case if {
	every g in all_globs {
		g == lower(g)
	}
}

# Every glob is relative (to the project or the home directory).
test_globs_are_relative if {
	every g in all_globs {
		not startswith(g, "/")
		not startswith(g, "~")
		not startswith(g, "./")
	}
}

test_the_files_that_run_the_next_command_are_in if {
	".git/info/**" in protected.git
	".git/commondir" in protected.git
	".git/objects/info/alternates" in protected.git
	"**/.gitattributes" in protected.git
	".gitconfig" in protected.home
	".bashrc" in protected.home
	"**/.envrc" in protected.next_command
}

# What the change check leaves out is still protected from agents.
test_host_state_is_protected if {
	every h in protected.host_state {
		h in protected.home
	}
}

# names_host_state_file holds for "FILE:KEYS" whose FILE is a host_state
# file and whose KEYS is not empty.
names_host_state_file(c) if {
	[file, keys] := split(c, ":")
	file in protected.host_state
	keys != ""
}

# Each compared part names a host_state file and a key path.
test_host_state_compared_names_host_state_files if {
	every c in protected.host_state_compared {
		names_host_state_file(c)
	}
	".claude.json:mcpServers" in protected.host_state_compared
	".claude.json:projects.*.mcpServers" in protected.host_state_compared
}

# The credential stores the trial read inside are hidden.
test_secrets_hold_the_usual_credential_stores if {
	".ssh" in protected.secrets
	".git-credentials" in protected.secrets
	".config/gh" in protected.secrets
	".aws" in protected.secrets
}

# The browsers' profiles (every site's session cookies, the dashboard's
# among them) are hidden too.
test_secrets_hold_the_browsers_profiles if {
	".config/chromium" in protected.secrets
	".config/google-chrome" in protected.secrets
	".mozilla" in protected.secrets
	"snap/chromium" in protected.secrets
}

# What runs code or instructs the agent in the hosts' home directories is
# in host_code, relative to the home directory.
test_host_code_holds_hooks_commands_and_instructions if {
	".claude/hooks/**" in protected.host_code
	".claude/commands/**" in protected.host_code
	".claude/CLAUDE.md" in protected.host_code
	".codex/AGENTS.md" in protected.host_code
	every g in protected.host_code {
		not startswith(g, "/")
		not startswith(g, "~")
	}
}
