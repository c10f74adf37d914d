# The protected set: what no agent may write, nor remove or move by
# writing a directory that contains it.
package loopx.permission

import data.loopx.lib

# METADATA
# description: |
#   Never written by agents: the protected set (data.loopx.protected, one
#   list that loopx run's change check reads too): loopx's own spec,
#   policies and state; the agent hosts' hook and tool settings in any
#   directory of the project; git's files that run code at the next git
#   command or hide files from git (hooks, config, info/, .gitattributes);
#   the files a human's tools run on their own (.envrc, .vscode/tasks.json);
#   the user's files in the home directory that load agent hooks or run the
#   human's next command (~/.claude.json, ~/.gitconfig, ~/.bashrc, …; Go
#   gives each path's home-relative names as p.home); loopx's state
#   directory outside the project ($XDG_STATE_HOME/loopx, the anchors: Go
#   marks a path in it or containing it p.loopx_state); and any directory
#   containing one of them (.claude, .git, ~/.codex, the home itself, a directory containing
#   the project or the home: removing or moving it removes them). An opaque
#   command that names one of them (a mentioned path) denies too; one that
#   names only a directory containing them all (., the home, /) asks as any
#   opaque command.
protected := [lib.reason("protected_path", msg, "data.loopx.permission.protected", "") |
	some p in paths
	msg := protected_message(p)
]

protected_message(p) := msg if {
	hits := [n | some n in names(p); guarded_name(p, n)]
	count(hits) > 0
	msg := named_message(p, $"{p.path}{via(p, hits)}", protected_kind(hits[0]), covers_verb(protected_globs(hits[0]), hits[0]))
} else := msg if {
	hits := [h | some h in strs(object.get(p, "home", [])); home_setting(h); not all_home_named(p, h)]
	count(hits) > 0
	msg := named_message(p, $"{p.path} ({home_name(hits[0])})", home_kind, covers_verb(home_settings, lower(hits[0])))
} else := $"{p.path} is in, or contains, loopx's state directory outside the project (each project's anchor: the chain head, the read model, a server's record, socket and token): agents may not write it" if {
	p.loopx_state == true
	not mentioned(p)
} else := $"`{command}` cannot be read and names {p.path}, loopx's state directory outside the project" if {
	p.loopx_state == true
	mentioned(p)
} else := $"{p.path} contains the project and loopx's own loopx/ and .loopx/" if {
	p.contains_project == true
	not mentioned(p)
} else := $"{p.path} contains the user's home directory and its {home_kind}" if {
	p.contains_home == true
	not mentioned(p)
}

# named_message says which protected name p is (verb "is") or contains.
named_message(p, name, kind, verb) := $"`{command}` cannot be read and names {p.path}, {kind}" if mentioned(p)

else := $"{name} {verb} {kind}: agents may not write it"

guarded_name(p, n) if {
	protected_kind(n)
	not container_named(p, n)
}

container_named(p, ".") if mentioned(p)

all_home_named(p, ".") if mentioned(p)

protected_kind(n) := $"loopx's own ({concat(", ", protected_set.own)})" if own(n)

else := $"an agent host's hook or tool settings ({listed(host_settings)})" if host_setting(n)

else := $"git's files that run code at the next git command, point git elsewhere or hide files from git ({listed(git_settings)})" if git_setting(n)

else := $"a file the human's tools run on their own ({listed(next_command_files)})" if next_command_file(n)

# protected_globs are the globs a protected name n falls under (for the message's verb).
protected_globs(n) := protected_set.own if own(n)

else := host_settings if host_setting(n)

else := git_settings if git_setting(n)

else := next_command_files

# protected_set is the protected set, one list in one place
# (policies/loopx/protected: loopx run's change check hashes the same files).
protected_set := data.loopx.protected

# listed writes globs for people: "**/" dropped.
listed(gs) := concat(", ", [trim_prefix(g, "**/") | some g in gs])

own(".")

own(n) if {
	some g in protected_set.own
	covers(g, lower(n))
}

# host_settings are the files through which agent hosts load hooks and
# tools, in any directory (an absolute name in the home too).
host_settings := protected_set.hosts

host_setting(n) if {
	some g in host_settings
	covers(g, lower(n))
}

# git_settings run code at the next git command (hooks; core.hooksPath,
# core.fsmonitor, aliases, filter drivers in the config; the attributes
# selecting them) or hide files from git (info/exclude), with what the
# git configuration names (git_config_paths).
git_settings := array.concat(protected_set.git, git_config_paths)

# git_config_paths are the globs Go reads from the project's and the
# user's git configuration (never by running git): below the hooks
# directory core.hooksPath names (.husky/**, .githooks/**), and the files
# an include names.
git_config_paths := [g | some g in object.get(req, "git_config_paths", []); is_string(g)]

git_setting(n) if {
	some g in git_settings
	covers(g, lower(n))
}

# next_command_files are project files a human's tools run on their own.
next_command_files := protected_set.next_command

next_command_file(n) if {
	some g in next_command_files
	covers(g, lower(n))
}

# home_settings are the user's files, relative to the home directory, that
# load hooks or tools into an agent host or run the human's next command.
home_settings := protected_set.home

home_kind := $"user-level agent host settings or files that run the human's next command ({concat(", ", [home_name(g) | some g in home_settings])})"

# home_name writes a home-relative name as the shell would (~, ~/x).
home_name(".") := "~"

home_name(h) := concat("/", ["~", h]) if h != "."

home_setting(".")

home_setting(h) if {
	some g in home_settings
	covers(g, lower(h))
}

# METADATA
# scope: document
# description: |
#   covers(g, n): glob g matches the name n, or n is a directory that may
#   contain a match (removing, moving or chmod -R'ing n reaches it): n
#   matches g's first k segments, the k-th not **, and g has more
#   ("secrets" for secrets/**, ".claude" and "a/.claude" for
#   **/.claude/settings*.json, "api" for api/**/gen/**). A name below a
#   ** segment is not taken for a container (it may be a file: api/v2 for
#   api/**/gen/**, src for **/*.pem); "." covers every glob.
covers(g, n) if lib.glob_match(g, n)

covers(_, ".")

covers(g, n) if {
	gs := split(trim_prefix(g, "./"), "/")
	some k in numbers.range(1, count(gs) - 1)
	k < count(gs)
	gs[k - 1] != "**"
	lib.glob_match(concat("/", array.slice(gs, 0, k)), n)
}

# covers_verb is "is" when a glob matches n itself, "contains" when n only contains a match.
covers_verb(gs, n) := "is" if {
	some g in gs
	lib.glob_match(g, lower(n))
} else := "contains"

via(p, hits) := $" (-> {hits[0]})" if hits[0] != p.path

else := ""
