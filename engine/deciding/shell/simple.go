package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file reads one simple command: it strips the wrappers, records the
// normalised argv, and hands the program to the rules for its kind
// (builtins, files, archives, network, launchers, runners, interpreters,
// git), or to the unmodelled-command fallback.

// simple walks one simple command: it strips wrappers, records the
// normalised argv (argv[0] reduced to its base name, git's own programs
// such as git-push read as `git push`; git's global options dropped), then
// what the command writes, runs or hides. It returns the
// directories the next command runs in when this one succeeds and fails.
func (r *reader) simple(ws []word, in dirs, stdin stdinKind, rds []*syntax.Redirect) (ok, fail dirs) {
	all := ws
	ws, here := r.unwrap(ws, in)
	if len(ws) == 0 { // only a wrapper (exec 3>f, env, sudo -s): it is the command
		argv := make([]string, len(all))
		for i, w := range all {
			argv[i] = w.s
		}
		argv[0] = base(argv[0])
		r.emit(argv)
		return in, in
	}
	switch w := ws[0]; {
	case w.dyn != 0:
		r.opaquef("command word built from %s", r.snippet(w))
	case w.glob:
		r.opaquef("command word is a glob pattern (%s)", r.snippet(w))
	}
	if w := ws[0]; strings.Contains(w.s, "/") && w.dyn == 0 && r.writtenHere(w, here) {
		r.opaquef("runs %s, which this command line writes", w.s)
	}
	name := base(ws[0].s)
	if sub, ok := strings.CutPrefix(name, "git-"); ok && ws[0].dyn == 0 && gitCommand(sub) {
		// git's own programs (/usr/lib/git-core/git-push) are its subcommands.
		ws = append([]word{{s: "git", pos: ws[0].pos, end: ws[0].end}, {s: sub, pos: ws[0].pos, end: ws[0].end}}, ws[1:]...)
		name = "git"
	}
	start := 1
	var gitDirs dirs
	var gitCfg []word
	if name == "git" {
		start, gitDirs, gitCfg = r.gitGlobal(ws, here)
	}
	argv := make([]string, 0, len(ws)-start+1)
	argv = append(argv, name)
	for _, w := range ws[start:] {
		argv = append(argv, w.s)
	}
	r.emit(argv)
	r.subcommands(name, ws)
	r.optionArgs(name, ws)
	if name == "git" {
		r.git(ws[start:], gitDirs, !slices.Equal(gitDirs, here), len(r.cl.Argvs)-1, gitCfg)
		return in, in
	}
	return r.effects(name, ws, in, here, stdin, rds)
}

// effects records what a simple command (after unwrap; name is its base
// name, ws its words) writes, runs or hides; in are the directories the
// statement runs in and here those of this command (env -C). It returns
// where the next command runs when this one succeeds and fails. Shells,
// interpreters and builtins come first; then the rules of each kind of
// program (each name has one); a program none of them knows is
// unmodelled unless it is read-only.
func (r *reader) effects(name string, ws []word, in, here dirs, stdin stdinKind, rds []*syntax.Redirect) (ok, fail dirs) {
	args := ws[1:]
	if shells[name] {
		r.shell(name, args, here, stdin, rds)
		return in, in
	}
	if name == "gdb" {
		r.gdb(args)
	}
	if name == "lldb" {
		r.lldb(args)
	}
	if it, ok := interp(name); ok {
		r.interpret(name, it, args, stdin, here)
		return in, in
	}
	if ok, fail, done := r.builtin(name, args, in, here, stdin); done {
		return ok, fail
	}
	known := r.fileTools(name, args, here, stdin) || r.archives(name, args, here, stdin) ||
		r.network(name, args, here, stdin) || r.launchers(name, args, here, stdin) ||
		r.runners(name, args, here, stdin) || r.codeTools(name, args, here, stdin)
	if !known && !readOnly[name] {
		r.unmodelled(name, args, here)
	}
	return in, in
}

// base is a command word's program name: its last path element.
func base(s string) string {
	if s == "" {
		return s
	}
	return path.Base(s)
}

// isName reports a shell variable name.
func isName(s string) bool {
	for i, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// knownTools are well-known programs the reader has no rules for (their
// effects are unmodelled), beside those it has.
var knownTools = map[string]bool{"gofmt": true, "goimports": true, "golangci-lint": true, "staticcheck": true,
	"kubectl": true, "helm": true, "terraform": true, "pytest": true, "jest": true, "eslint": true, "prettier": true,
	"tsc": true, "gh": true, "cmake": true, "ninja": true, "bazel": true, "rustup": true, "cd": true, "pushd": true,
	"popd": true, "eval": true, "source": true, ".": true, "rm": true, "rmdir": true, "mkdir": true, "touch": true,
	"mv": true, "cp": true, "ln": true, "install": true, "chmod": true, "chown": true, "tee": true, "sed": true,
	"awk": true, "sort": true, "uniq": true, "xargs": true, "find": true, "curl": true, "wget": true, "unzip": true,
	"zip": true, "gzip": true, "gunzip": true, "vi": true, "vim": true, "nano": true, "ssh": true, "scp": true,
	"sqlite3": true, "tmux": true, "watch": true, "time": true, "nice": true, "timeout": true, "sudo": true}

// knownCommand reports a program the reader has rules for or knows.
func knownCommand(name string) bool {
	if _, ok := interp(name); ok {
		return true
	}
	_, df := dirFlags[name]
	return readOnly[name] || runnerCmds[name] || df || shells[name] || knownTools[name]
}
