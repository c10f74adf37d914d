package shell

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// This file models git: its global options (-C, -c, --git-dir, …), what
// each subcommand writes (pathspecs, .git/config, clone and worktree
// targets), and the subcommands, options and configuration keys that run
// commands or rewrite the whole tree.

// gitExecKeys are git configuration keys whose values run commands, load
// other configuration, or move the tree git writes.
var gitExecKeys = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(alias\..+|core\.(pager|sshcommand|editor|fsmonitor|hookspath|askpass|gitproxy|alternaterefscommand|worktree)|pager\..+|diff\..+\.(command|textconv)|diff\.external|merge\..+\.driver|filter\..+\.(clean|smudge|process)|credential\..*helper|sequence\.editor|gpg\.program|gpg\..+\.program|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|proxy|vcs)|include\.path|includeif\..+\.path|sendemail\..+|web\.browser|browser\..+\.(cmd|path)|man\..+\.(cmd|path)|difftool\..+\.cmd|mergetool\..+\.cmd|ssh\.variant|protocol\..+|url\..+|http\..*proxy|init\.templatedir|receive\.procreceiverefs|instaweb\..+)$`)
})

// gitConfigKey marks a git configuration key that runs commands opaque.
func (r *reader) gitConfigKey(kv word, how string) {
	if kv.dyn != 0 {
		r.opaquef("git %s built from %s", how, r.snippet(kv))
		return
	}
	k, _, _ := strings.Cut(kv.s, "=")
	if gitExecKeys().MatchString(k) {
		r.opaquef("git %s %s can run commands", how, k)
	}
}

// gitGlobal reads git's global options (before the subcommand): it returns
// the index of the subcommand in ws, the directories git works in (-C,
// --work-tree) and the KEY=VALUE words of its -c options, and marks
// options that run commands opaque.
func (r *reader) gitGlobal(ws []word, here dirs) (int, dirs, []word) {
	var cfg []word
	i := 1
	for i < len(ws) && strings.HasPrefix(ws[i].s, "-") {
		a := ws[i]
		name, val, hasVal := strings.Cut(a.s, "=")
		next := func() (word, bool) {
			if hasVal {
				return word{s: val, dyn: a.dyn, pos: a.pos, end: a.end}, true
			}
			if i+1 < len(ws) {
				i++
				return ws[i], true
			}
			return word{}, false
		}
		switch {
		case name == "-C" || name == "--work-tree":
			if name == "--work-tree" {
				r.opaquef("git --work-tree points git at a tree loopx does not follow")
			}
			if d, ok := next(); ok {
				here = r.cdTo(d, here)
			}
		case name == "-c" || name == "--config-env":
			if kv, ok := next(); ok {
				r.gitConfigKey(kv, name)
				cfg = append(cfg, kv)
			}
		case strings.HasPrefix(a.s, "-c") && !strings.HasPrefix(a.s, "--"): // -cKEY=VAL is -c KEY=VAL
			kv := word{s: a.s[2:], dyn: a.dyn, pos: a.pos, end: a.end}
			r.gitConfigKey(kv, "-c")
			cfg = append(cfg, kv)
		case name == "--exec-path":
			if hasVal {
				r.opaquef("git --exec-path runs git commands from %s", val)
			}
		case name == "--git-dir":
			r.opaquef("git --git-dir points git at a repository (its config and hooks) loopx does not follow")
			next()
		case name == "--namespace" || name == "--super-prefix" || name == "--list-cmds" || name == "--attr-source":
			next()
		}
		i++
	}
	if i < len(ws) {
		switch w := ws[i]; {
		case w.dyn != 0:
			r.opaquef("git subcommand built from %s", r.snippet(w))
		case w.glob:
			r.opaquef("git subcommand is a glob pattern (%s)", w.s)
		}
	}
	return i, here, cfg
}

// git records what a git subcommand (args[0]) does: the loopx action it
// takes (on the simple command emitted at index at: git.push and
// git.push.force, git.merge, git.commit, git.tag), what it writes (moved:
// git -C or --work-tree changed the directory here), the alias it
// resolves to (read from the configuration, never by running git), and
// marks those that run commands or rewrite the whole tree, and a
// subcommand it cannot resolve, opaque. cfg are the line's -c KEY=VALUE
// words.
func (r *reader) git(args []word, here dirs, moved bool, at int, cfg []word) {
	if len(args) == 0 || args[0].dyn != 0 || args[0].glob {
		return // gitGlobal said why a built subcommand is opaque
	}
	sub, rest := args[0].s, args[1:]
	if !gitCommand(sub) {
		r.gitAlias(args, here, moved)
		return
	}
	r.gitAction(sub, rest, at, cfg)
	writeAll := func(ws []word) {
		for _, w := range ws {
			r.writeTarget(w, here, "git "+sub+" pathspec")
		}
	}
	for i, a := range rest {
		for _, f := range []string{"--upload-pack", "--receive-pack", "--exec"} {
			if a.s == f || strings.HasPrefix(a.s, f+"=") {
				r.opaquef("git %s %s runs a command", sub, f)
			}
		}
		switch { // any subcommand's --output (log, diff, show, format-patch, …)
		case strings.HasPrefix(a.s, "--output="):
			a.s = a.s[len("--output="):]
			r.writeTarget(a, here, "git "+sub+" --output")
		case a.s == "--output" && i+1 < len(rest):
			r.writeTarget(rest[i+1], here, "git "+sub+" --output")
		}
	}
	switch sub {
	case "checkout", "restore", "rm":
		opts, ops := scanOpts(rest, "bBts", "orphan conflict pathspec-from-file source", true)
		if hasOpt(opts, "--pathspec-from-file") {
			r.opaquef("git %s --pathspec-from-file reads its paths from a file", sub)
		}
		if sub == "checkout" && hasOpt(opts, "-f", "--force") {
			r.opaquef("git checkout --force rewrites the working tree (loopx/ included)")
		}
		if sub == "restore" && hasOpt(opts, "-s", "--source") {
			r.opaquef("git restore --source writes files from another commit")
		}
		r.magicPathspecs(sub, ops)
		if sep := dashdash(rest); sep >= 0 && sub == "checkout" {
			ops = rest[sep+1:]
		}
		switch {
		case sub == "restore" && hasOpt(opts, "-S", "--staged") && !hasOpt(opts, "-W", "--worktree"):
		case sub == "rm" && hasOpt(opts, "--cached"):
		default:
			writeAll(ops)
		}
	case "mv":
		_, ops := scanOpts(rest, "", "", true)
		writeAll(ops)
	case "switch":
		if opts, _ := scanOpts(rest, "cC", "orphan conflict", true); hasOpt(opts, "-f", "--force", "--discard-changes") {
			r.opaquef("git switch --discard-changes rewrites the working tree (loopx/ included)")
		}
	case "read-tree":
		if opts, _ := scanOpts(rest, "", "prefix index-output exclude-per-directory", true); hasOpt(opts, "-u", "-m", "--reset") {
			r.opaquef("git read-tree -m/-u/--reset rewrites the index or the working tree (loopx/ included)")
		}
	case "checkout-index", "update-index":
		r.opaquef("git %s writes the index or the working tree from object ids loopx cannot read", sub)
		_, ops := scanOpts(rest, "", "prefix stage cacheinfo index-info chmod", true)
		if sub == "checkout-index" {
			writeAll(ops)
		}
	case "clean":
		opts, ops := scanOpts(rest, "e", "exclude", true)
		r.magicPathspecs(sub, ops)
		switch {
		case hasOpt(opts, "-n", "--dry-run"):
		case len(ops) == 0:
			r.opaquef("git clean without a pathspec removes untracked files across the tree (loopx/ included)")
		default:
			writeAll(ops)
		}
	case "stash":
		verb := "push"
		if len(rest) > 0 && !strings.HasPrefix(rest[0].s, "-") {
			verb, rest = rest[0].s, rest[1:]
		}
		switch verb {
		case "push", "save":
			_, ops := scanOpts(rest, "m", "message pathspec-from-file", true)
			if verb == "save" {
				ops = nil // save's operands are the message
			}
			if len(ops) == 0 {
				r.opaquef("git stash %s without a pathspec rewrites the working tree (loopx/ included)", verb)
			}
			writeAll(ops)
		case "pop", "apply", "branch":
			r.opaquef("git stash %s rewrites the working tree (loopx/ included)", verb)
		}
	case "reset":
		opts, ops := scanOpts(rest, "", "pathspec-from-file", true)
		if hasOpt(opts, "--hard", "--keep", "--merge") {
			r.opaquef("git reset --hard rewrites the working tree (loopx/ included)")
		}
		if sep := dashdash(rest); sep >= 0 {
			ops = rest[sep+1:]
		}
		writeAll(ops) // the index entries reset (a commit named here is no protected path)
	case "apply", "am":
		if opts, _ := scanOpts(rest, "pC", "directory", true); sub == "am" || !hasOpt(opts, "--check", "--stat", "--numstat", "--summary", "--cached") {
			r.opaquef("git %s writes the files named inside the patch", sub)
		}
	default:
		r.gitMore(sub, rest, here, moved)
	}
}

// gitMore handles the git subcommands that create directories, run
// commands, or set configuration.
func (r *reader) gitMore(sub string, rest []word, here dirs, moved bool) {
	switch sub {
	case "clone":
		opts, ops := scanOpts(rest, "obuc", "origin branch upload-pack config template reference separate-git-dir depth jobs filter", true)
		if hasOpt(opts, "-u") {
			r.opaquef("git clone -u runs a command (the upload-pack)")
		}
		for _, kv := range optVals(opts, "-c", "--config") {
			r.gitConfigKey(kv, "clone -c")
		}
		if len(ops) > 1 {
			r.writeTarget(ops[1], here, "git clone target")
		}
	case "init":
		opts, ops := scanOpts(rest, "b", "template separate-git-dir initial-branch object-format shared", true)
		for _, d := range optVals(opts, "--separate-git-dir") {
			r.writeTarget(d, here, "git init --separate-git-dir")
		}
		switch {
		case len(ops) > 0:
			for _, d := range ops {
				r.writeTarget(d, here, "git init target")
			}
		case moved: // git -C DIR init creates DIR
			r.writeTarget(word{s: "."}, here, "git -C directory")
		case hasOpt(opts, "--template"): // copies hooks into .git/hooks
			r.writeTarget(word{s: ".git"}, here, "git init --template")
		}
	case "worktree":
		if len(rest) > 0 && rest[0].s == "add" {
			_, ops := scanOpts(rest[1:], "bB", "reason", true)
			if len(ops) > 0 {
				r.writeTarget(ops[0], here, "git worktree target")
			}
		}
	case "grep":
		for _, a := range rest {
			if strings.HasPrefix(a.s, "--open-files-in-pager") || (strings.HasPrefix(a.s, "-O") && !strings.HasPrefix(a.s, "--")) {
				r.opaquef("git grep -O runs a pager command")
			}
		}
	case "submodule":
		if opts, ops := scanOpts(rest, "b", "branch name reference depth", true); len(ops) > 0 {
			switch ops[0].s {
			case "add", "init", "set-url", "set-branch", "sync", "deinit":
				r.writeTarget(word{s: ".git/config"}, here, "git submodule "+ops[0].s)
			case "update": // registers (writes .git/config) with --init only
				if hasOpt(opts, "--init") {
					r.writeTarget(word{s: ".git/config"}, here, "git submodule update --init")
				}
			}
		}
		for _, a := range rest {
			if a.s == "foreach" {
				r.opaquef("git submodule foreach runs a command in every submodule")
			}
		}
	case "bisect":
		if len(rest) > 0 && rest[0].s == "run" {
			r.opaquef("git bisect run runs a command at every step")
			if len(rest) > 1 {
				r.simple(rest[1:], here, stdinNone, nil)
			}
		}
	case "rebase":
		if opts, _ := scanOpts(rest, "xsX", "exec strategy strategy-option onto", true); hasOpt(opts, "-x", "--exec") {
			r.opaquef("git rebase --exec runs a command after every commit")
		}
	case "filter-branch":
		r.opaquef("git filter-branch runs filter commands")
	case "difftool":
		if opts, _ := scanOpts(rest, "xt", "extcmd tool", true); hasOpt(opts, "-x", "--extcmd") {
			r.opaquef("git difftool --extcmd runs a command")
		}
	case "config":
		r.gitConfig(rest, here)
	case "remote":
		// add, rename, remove, set-url, set-head and set-branches write
		// .git/config (a remote's url can run a command: ext::).
		if _, ops := scanOpts(rest, "tm", "", true); len(ops) > 0 {
			switch ops[0].s {
			case "add", "rename", "remove", "rm", "set-url", "set-head", "set-branches":
				r.writeTarget(word{s: ".git/config"}, here, "git remote "+ops[0].s)
			}
		}
	case "branch":
		if opts, _ := scanOpts(rest, "u", "set-upstream-to", true); hasOpt(opts, "-u", "--set-upstream-to", "--set-upstream", "--unset-upstream", "--edit-description") {
			r.writeTarget(word{s: ".git/config"}, here, "git branch upstream")
		}
	case "diff", "format-patch", "archive", "bundle":
		opts, ops := scanOpts(rest, "o", "output output-directory", true)
		for _, f := range optVals(opts, "-o", "--output", "--output-directory") {
			r.writeTarget(f, here, "git "+sub+" output")
		}
		if sub == "bundle" && len(ops) > 1 && ops[0].s == "create" {
			r.writeTarget(ops[1], here, "git bundle target")
		}
	}
}

// gitConfig records what git config writes: --file's file, or the
// repository's .git/config (~/.gitconfig with --global, /etc/gitconfig
// with --system) for every form that is not a read; keys that run
// commands are opaque.
func (r *reader) gitConfig(rest []word, here dirs) {
	opts, ops := scanOpts(rest, "f", "file blob type default comment value", true)
	write := false
	if len(ops) > 0 && slices.Contains([]string{"set", "unset", "get", "list", "edit", "rename-section", "remove-section", "get-color", "get-colorbool"}, ops[0].s) {
		verb := ops[0].s
		ops = ops[1:]
		write = verb == "set" || verb == "unset" || verb == "edit" || verb == "rename-section" || verb == "remove-section"
		if verb != "set" {
			ops = nil
		}
	} else {
		write = len(ops) >= 2 || hasOpt(opts, "--add", "--replace-all", "--unset", "--unset-all", "--rename-section", "--remove-section", "-e", "--edit")
		if hasOpt(opts, "--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--get-color", "--get-colorbool") {
			write = false
		}
	}
	if !write {
		return
	}
	switch f := optVals(opts, "-f", "--file"); {
	case len(f) > 0:
		for _, w := range f {
			r.writeTarget(w, here, "git config --file target")
		}
	case hasOpt(opts, "--global"):
		r.writeTarget(word{s: "~/.gitconfig"}, here, "git config --global")
	case hasOpt(opts, "--system"):
		r.writeTarget(word{s: "/etc/gitconfig"}, here, "git config --system")
	default:
		r.writeTarget(word{s: ".git/config"}, here, "git config")
	}
	if len(ops) > 0 {
		r.gitConfigKey(ops[0], "config")
	}
}

// magicPathspecs marks git pathspecs with magic (":/" the whole tree from
// the top, ":(exclude)x", ":!x") opaque: they name files loopx cannot list.
func (r *reader) magicPathspecs(sub string, ops []word) {
	for _, w := range ops {
		if strings.HasPrefix(w.s, ":") {
			r.opaquef("git %s pathspec %s names files loopx cannot list", sub, r.snippet(w))
			return
		}
	}
}
