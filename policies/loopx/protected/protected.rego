# METADATA
# title: loopx.protected
# description: |
#   The protected set, in one place: the files no agent may write, because
#   they govern agents or because they make the human's next command run
#   code an agent wrote. The permission policy denies writing them (its
#   protected rule) and loopx run's change check hashes them in full before
#   and after every agent command (Go reads this module's values: keep each
#   a list of string literals). Globs have doublestar semantics and are
#   compared lower-cased; a project glob starting with "**/" matches in any
#   directory (the change check hashes it at the root and wherever git
#   lists it), one starting with ".git/" names git's own directory.
package loopx.protected

# own are loopx's own spec, policies and state.
own := ["loopx/**", ".loopx/**"]

# hosts are the files through which agent hosts load hooks and tools, in
# any directory of the project.
hosts := ["**/.claude/settings*.json", "**/.codex/hooks.json", "**/.codex/config.toml", "**/.mcp.json"]

# git are git's files that run code at the next git command (hooks; the
# config's core.hooksPath, core.fsmonitor, aliases, filter drivers; the
# attributes that select filter and diff drivers; .gitmodules, which names
# a submodule's URL and update command; a rebase's or a sequencer's todo
# list, whose exec lines run at the human's next --continue; the hook
# managers' scripts and configuration, which the installed hooks run:
# husky's .husky/, pre-commit's .pre-commit-config.yaml, lefthook's) or hide files
# from git (info/exclude), submodules' and worktrees' included. Beside
# them, what the git configuration names is protected the same way: the
# directory core.hooksPath names and the files an include names (Go reads
# them from the configuration files, never by running git, into
# input.permission.git_config_paths and the change check). Also git's files
# that point it elsewhere or configure it without the config (git's
# repository layout): commondir (read in the main .git too: the common
# directory, whose config and hooks then apply), a worktree's commondir and
# gitdir, the object store's alternates (objects/info/alternates,
# http-alternates), the legacy remotes/ and branches/, gitdir.
git := [
	".git/hooks/**", ".git/config", ".git/config.worktree", ".git/info/**",
	".git/commondir", ".git/gitdir", ".git/objects/info/alternates", ".git/objects/info/http-alternates",
	".git/remotes/**", ".git/branches/**", ".git/worktrees/*/commondir", ".git/worktrees/*/gitdir",
	".git/modules/**/config", ".git/modules/**/hooks/**", ".git/worktrees/*/config*",
	".git/rebase-merge/**", ".git/rebase-apply/**", ".git/sequencer/**",
	"**/.gitattributes", "**/.gitmodules",
	"**/.husky/**", "**/.pre-commit-config.yaml", "**/lefthook.yml", "**/.lefthook.yml", "**/lefthook-local.yml", "**/.lefthook/**",
]

# next_command are project files a human's tools run on their own: direnv's
# .envrc (loaded on cd), VS Code's tasks (run when the folder opens).
next_command := ["**/.envrc", "**/.vscode/tasks.json"]

# home are the user's files, relative to the home directory, that load
# hooks or tools into an agent host, or run code at the human's next
# command: git's user config and attributes, shell start-up files,
# systemd user units, ssh's config (ProxyCommand, LocalCommand), the bin
# directories early in PATH, and loopx's own user config. The sandbox
# can keep a missing file from being made only when it is named: a glob's
# file that does not exist yet is protected by a literal entry (Claude
# Code's settings.local.json; the glob names settings.json).
home := [
	".claude/settings*.json", ".claude.json", ".codex/config.toml", ".codex/hooks.json",
	".gitconfig", ".config/git/**",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".bash_aliases",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".config/fish/**",
	".config/systemd/user/**", ".ssh/config", ".local/bin/**", "bin/**", ".config/loopx/**",
	".claude/settings.local.json",
]

# secrets are the home directory's credential stores, relative to it: not
# visible at all inside loopx run's sandbox (the network stays open for
# the agent host's API, so what holds a token must not be readable there).
# Directories are hidden whole. The browsers' profiles are here too: they
# hold the session cookies of every site, the dashboard's among them.
secrets := [
	".ssh", ".git-credentials", ".netrc", ".config/gh", ".config/git/credentials",
	".aws", ".azure", ".config/gcloud", ".kube", ".docker", ".npmrc", ".pypirc",
	".gnupg", ".cargo/credentials", ".cargo/credentials.toml", ".password-store",
	".config/chromium", ".config/google-chrome", ".config/google-chrome-beta",
	".config/microsoft-edge", ".config/vivaldi", ".mozilla", ".librewolf",
	"snap/chromium", "snap/firefox",
]

# host_code are the agent hosts' home files, relative to the home
# directory, that run code or instruct the agent at the human's next
# session, in directories the host otherwise writes while it runs: read-only
# inside loopx run's sandbox (the rest of ~/.claude/ and ~/.codex/ stays
# writable, for the host's sessions). Claude Code: its hook scripts,
# commands, subagents, skills, plugins, output styles, its local install
# and the user's CLAUDE.md; Codex: its prompts, agents, skills, rules and
# AGENTS.md. Names keep their real case (the sandbox binds them as they
# are; the permission policy does not read this list).
host_code := [
	".claude/hooks/**", ".claude/commands/**", ".claude/agents/**", ".claude/skills/**",
	".claude/plugins/**", ".claude/output-styles/**", ".claude/local/**", ".claude/CLAUDE.md",
	".codex/prompts/**", ".codex/agents/**", ".codex/skills/**", ".codex/rules/**",
	".codex/AGENTS.md", ".codex/AGENTS.override.md",
]

# host_state are the home files of the list above that an agent host
# rewrites itself while it runs (Claude Code keeps its state in
# ~/.claude.json): agents may not write them, but the change check does not
# compare them in full (the host's own writes would fail every round),
# only their parts in host_state_compared.
host_state := [".claude.json"]

# host_state_compared are the parts of the host_state files the change
# check compares all the same, as "<file>:<key path>" (a JSON object's
# keys, "*" any one key): what makes the human's next host session run
# code or skip a question. In ~/.claude.json: the MCP servers of the user
# (mcpServers) and of each project (projects.<path>.mcpServers), each
# project's approval of its .mcp.json servers, and the tools it allows
# without asking.
host_state_compared := [
	".claude.json:mcpServers",
	".claude.json:projects.*.mcpServers",
	".claude.json:projects.*.enabledMcpjsonServers",
	".claude.json:projects.*.enableAllProjectMcpServers",
	".claude.json:projects.*.allowedTools",
]
