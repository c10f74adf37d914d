package shell

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// This file is what the shell reader knows of particular commands: the
// wrappers it sees through, the files mutators write, and the shells,
// interpreters and runners whose effect it cannot see.

// opt is one option of a command: "-x" or "--name", with its value.
type opt struct {
	name   string
	val    word
	hasVal bool
}

// scanOpts splits args into options and operands. A short option letter in
// valued takes a value: the rest of its cluster ("-ofile") or the next word
// ("-o file"); a long option listed in long (space-separated, without
// dashes) takes "--name=v" or "--name v", others only "--name=v". With
// permute, options after operands count too (GNU style); without, the first
// operand ends them. "--" always ends them; a lone "-" is an operand.
// When unsure whether a word is a value, scanOpts takes it for an operand:
// callers treat operands as the files a command touches.
func scanOpts(args []word, valued, long string, permute bool) (opts []opt, ops []word) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--":
			return opts, append(ops, args[i+1:]...)
		case strings.HasPrefix(a.s, "--"):
			name, val, hasVal := strings.Cut(a.s[2:], "=")
			o := opt{name: "--" + name, hasVal: hasVal}
			if hasVal {
				o.val = word{s: val, dyn: a.dyn, pos: a.pos, end: a.end}
			} else if listed(long, name) && i+1 < len(args) {
				i++
				o.val, o.hasVal = args[i], true
			}
			opts = append(opts, o)
		case len(a.s) > 1 && a.s[0] == '-':
			for j := 1; j < len(a.s); j++ {
				c := a.s[j]
				o := opt{name: "-" + string(c)}
				if strings.IndexByte(valued, c) >= 0 {
					if j+1 < len(a.s) {
						o.val, o.hasVal = word{s: a.s[j+1:], dyn: a.dyn, pos: a.pos, end: a.end}, true
					} else if i+1 < len(args) {
						i++
						o.val, o.hasVal = args[i], true
					}
					opts = append(opts, o)
					break
				}
				opts = append(opts, o)
			}
		default:
			if !permute {
				return opts, append(ops, args[i:]...)
			}
			ops = append(ops, a)
		}
	}
	return opts, ops
}

// listed reports whether name is in the space-separated list.
func listed(list, name string) bool {
	for f := range strings.FieldsSeq(list) {
		if f == name {
			return true
		}
	}
	return false
}

func hasOpt(opts []opt, names ...string) bool {
	for _, o := range opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

func optVals(opts []opt, names ...string) []word {
	var out []word
	for _, o := range opts {
		for _, n := range names {
			if o.name == n && o.hasVal {
				out = append(out, o.val)
			}
		}
	}
	return out
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

// execEnv are environment variables that make programs run other code, run
// another program for a name, or read or write another tree.
var execEnv = map[string]bool{"LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true,
	"DYLD_INSERT_LIBRARIES": true, "DYLD_LIBRARY_PATH": true, "DYLD_FRAMEWORK_PATH": true, "BASH_ENV": true,
	"ENV": true, "PROMPT_COMMAND": true, "PS4": true, "SHELLOPTS": true, "BASHOPTS": true, "PERL5OPT": true,
	"PERL5LIB": true, "NODE_OPTIONS": true, "RUBYOPT": true, "PYTHONSTARTUP": true, "PYTHONHOME": true,
	"EDITOR": true, "VISUAL": true, "PAGER": true, "MANPAGER": true, "LESSOPEN": true, "LESSCLOSE": true,
	"BROWSER": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true, "PATH": true, "CDPATH": true, "HOME": true,
	"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "GIT_PAGER": true,
	"GIT_ASKPASS": true, "GIT_EXEC_PATH": true, "GIT_EXTERNAL_DIFF": true, "GIT_PROXY_COMMAND": true,
	"GIT_CONFIG": true, "GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_TEMPLATE_DIR": true,
	"GOFLAGS": true, "GOENV": true, "MAKEFLAGS": true, "MFLAGS": true, "RUSTC_WRAPPER": true, "RUSTC": true,
	"CARGO_BUILD_RUSTC_WRAPPER": true, "CC": true, "CXX": true, "LD": true, "PYTHONPATH": true, "NODE_PATH": true,
	"RUBYLIB": true, "npm_config_script_shell": true, "NPM_CONFIG_SCRIPT_SHELL": true, "TAR_OPTIONS": true,
	"RSYNC_RSH": true, "CURL_HOME": true, "WGETRC": true}

// envName marks an assignment of an environment variable in execEnv opaque.
func (r *reader) envName(name string) {
	if execEnv[name] || strings.HasPrefix(name, "GIT_CONFIG_") || strings.HasPrefix(name, "BASH_FUNC_") {
		r.opaquef("sets %s, which changes what programs run or where they write", name)
	}
}

// cdTo is where a command runs after changing to the directory w.
func (r *reader) cdTo(w word, in dirs) dirs {
	if w.dyn != 0 || w.s == "" || w.s == "-" {
		return dirs{unknownDir}
	}
	out := in.join(w.s)
	r.seen = r.seen.union(out)
	return out
}

// readScript reads a script given as one word (sh -c 'S', eval, trap, su
// -c, watch, …) from the directories in, and returns where it ends.
func (r *reader) readScript(w word, in dirs, what string) (ok, fail dirs) {
	if w.dyn != 0 {
		r.opaquef("%s runs a script built from %s", what, r.snippet(w))
		return in, in
	}
	ok, fail, err := r.scriptDirs(w.s, in, stdinNone)
	if err != nil {
		r.malformed(fmt.Errorf("%s: %v", what, err))
	}
	return ok, fail
}

// joinWords is the words as one script (eval, watch and parallel join
// their arguments with spaces); the result is dynamic if any word is.
func joinWords(ws []word) word {
	out := word{}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.s
		out.dyn |= w.dyn
	}
	if len(ws) > 0 {
		out.pos, out.end = ws[0].pos, ws[len(ws)-1].end
	}
	out.s = strings.Join(parts, " ")
	return out
}

// unwrap strips what does not change which program runs: leading NAME=value
// words and wrappers (env, sudo, doas, command, builtin, exec, nohup, time,
// nice, timeout, stdbuf, ionice, setsid, chrt, taskset, strace, flock, npx,
// unbuffer, busybox, …) with their options. It returns the command left
// (none when only wrappers) and the directories it runs in (env -C and
// sudo -D change them).
func (r *reader) unwrap(ws []word, in dirs) ([]word, dirs) {
	for len(ws) > 0 {
		w := ws[0]
		if w.dyn != 0 {
			return ws, in
		}
		if n, _, ok := strings.Cut(w.s, "="); ok && isName(n) {
			r.envName(n)
			ws = ws[1:]
			continue
		}
		name, args := base(w.s), ws[1:]
		switch name {
		case "env":
			opts, rest := scanOpts(args, "uCSP", "unset chdir split-string", false)
			for _, o := range opts {
				switch o.name {
				case "-C", "--chdir":
					in = r.cdTo(o.val, in)
				case "-S", "--split-string":
					r.opaquef("env -S splits a string into a command")
					r.readScript(joinWords(append([]word{o.val}, rest...)), in, "env -S")
					return nil, in
				}
			}
			ws = rest
		case "sudo", "doas":
			opts, rest := scanOpts(args, "ugChprtUDRTa", "user group close-from host prompt role type other-user chdir chroot command-timeout", false)
			for _, o := range opts {
				switch o.name {
				case "-e", "--edit":
					return append([]word{{s: "sudoedit"}}, rest...), in
				case "-D", "--chdir":
					in = r.cdTo(o.val, in)
				}
			}
			if len(rest) == 0 && hasOpt(opts, "-s", "--shell", "-i", "--login") {
				r.opaquef("%s opens a shell that reads commands loopx cannot see", name)
			}
			ws = rest
		case "command":
			opts, rest := scanOpts(args, "", "", false)
			if hasOpt(opts, "-v", "-V") {
				return ws, in // a lookup: nothing runs
			}
			ws = rest
		case "builtin", "nohup", "setsid", "unbuffer", "catchsegv", "proxychains", "proxychains4", "torsocks", "valgrind", "nocache":
			_, ws = scanOpts(args, "", "", false)
		case "exec":
			_, ws = scanOpts(args, "a", "", false)
		case "time":
			opts, rest := scanOpts(args, "fo", "format output", false)
			for _, f := range optVals(opts, "-o", "--output") {
				r.writeTarget(f, in, "time -o target")
			}
			ws = rest
		case "nice":
			_, ws = scanOpts(args, "n", "adjustment", false)
		case "timeout":
			_, rest := scanOpts(args, "sk", "signal kill-after", false)
			if len(rest) > 0 {
				rest = rest[1:] // the duration
			}
			ws = rest
		case "stdbuf":
			_, ws = scanOpts(args, "ioe", "input output error", false)
		case "ionice":
			opts, rest := scanOpts(args, "cnpPu", "class classdata pid pgid uid", false)
			if hasOpt(opts, "-p", "-P", "-u", "--pid", "--pgid", "--uid") {
				return nil, in
			}
			ws = rest
		case "chrt", "taskset":
			opts, rest := scanOpts(args, "TPD", "sched-runtime sched-period sched-deadline cpu-list", false)
			if hasOpt(opts, "-p", "--pid") || len(rest) == 0 {
				return nil, in
			}
			ws = rest[1:] // the priority or the CPU mask
		case "strace", "ltrace":
			opts, rest := scanOpts(args, "oepsuEPabXIOSU", "output", false)
			for _, f := range optVals(opts, "-o", "--output") {
				r.writeTarget(f, in, name+" -o target")
			}
			ws = rest
		case "flock":
			_, rest := scanOpts(args, "wEc", "timeout conflict-exit-code command", false)
			if len(rest) == 0 {
				return nil, in
			}
			opts, cmd := scanOpts(rest[1:], "c", "command", false)
			for _, c := range optVals(opts, "-c", "--command") {
				r.readScript(c, in, "flock -c")
				return nil, in
			}
			ws = cmd
		case "npx":
			opts, rest := scanOpts(args, "pc", "package call", false)
			for _, c := range optVals(opts, "-c", "--call") {
				r.readScript(c, in, "npx -c")
				return nil, in
			}
			ws = rest
		case "busybox":
			if len(args) > 0 && shells[base(args[0].s)] {
				r.opaquef("busybox runs a shell (%s)", args[0].s)
			}
			ws = args
		default:
			return ws, in
		}
	}
	return ws, in
}

// simple walks one simple command: it strips wrappers, records the
// normalised argv (argv[0] reduced to its base name; git's global options
// dropped), then what the command writes, runs or hides. It returns the
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
	start := 1
	var gitDirs dirs
	if name == "git" {
		start, gitDirs = r.gitGlobal(ws, here)
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
		r.git(ws[start:], gitDirs, !slices.Equal(gitDirs, here))
		return in, in
	}
	return r.effects(name, ws, in, here, stdin, rds)
}

// subcommands marks a command whose action words are built from
// expansions opaque: the first two operands of gh, npm, yarn and pnpm
// (`gh pr $x`, `npm $x`); and, since loopx's human-only verbs must never
// hide behind an expansion, any command with an argument built from one
// whose other arguments hold a verb word of loopx (`x $A answer`), or whose
// command word is loopx, a path or a program loopx does not know (`loopx
// ${V:-gate} answer`, `./bin/lx $(echo adopt)`). The reason names the
// verbs the literal words may complete (for the policy's human-only rule).
// git's subcommand is checked by gitGlobal.
func (r *reader) subcommands(name string, ws []word) {
	var dyn *word
	var verbs []string
	for i := range ws[1:] {
		w := &ws[i+1]
		switch {
		case w.dyn != 0:
			if dyn == nil {
				dyn = w
			}
			for _, v := range verbsIn(r.snippet(*w)) {
				verbs = appendNew(verbs, v)
			}
		case verbWords[w.s] != "":
			verbs = appendNew(verbs, verbWords[w.s])
		}
	}
	if dyn != nil && (len(verbs) > 0 || name == "loopx" || strings.Contains(ws[0].s, "/") || !knownCommand(name)) {
		if len(verbs) > 0 {
			r.opaquef("%s argument built from %s beside loopx verb words: it may run `%s`", name, r.snippet(*dyn), strings.Join(verbs, "`, `"))
		} else {
			r.opaquef("%s argument built from %s", name, r.snippet(*dyn))
		}
		return
	}
	switch name {
	case "gh", "npm", "yarn", "pnpm":
		for i, w := range ws[1:] {
			if i >= 2 {
				return
			}
			if w.dyn != 0 {
				r.opaquef("%s argument built from %s", name, r.snippet(w))
				return
			}
		}
	}
}

// verbsIn are the human-only verbs a word of the text of an expansion
// belongs to: the expansion may yield it (${V:-adopt}, $(echo register));
// a flag cut short by the expansion counts when a verb flag starts with it
// (--accept-$X).
func verbsIn(text string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(text, func(c rune) bool {
		return c != '-' && c != '_' && !unicode.IsLetter(c) && !unicode.IsDigit(c)
	}) {
		for k, v := range verbWords {
			if k == t || k == strings.TrimLeft(t, "-") || (strings.HasPrefix(t, "--") && len(t) > 3 && strings.HasPrefix(k, t)) {
				out = appendNew(out, v)
			}
		}
	}
	slices.Sort(out)
	return out
}

// verbWords maps each word of loopx's human-only verbs to the verb it is
// part of (design §8, §16; the policy's human_only rule decides).
var verbWords = map[string]string{"gate": "gate answer", "answer": "gate answer", "adopt": "adopt",
	"doctor": "doctor --accept-store", "--accept-store": "doctor --accept-store", "events": "events --prune-before",
	"--prune-before": "events --prune-before", "hooks": "hooks uninstall", "uninstall": "hooks uninstall",
	"agent": "agent register", "register": "agent register", "dashboard": "dashboard"}

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

// shells are the programs that run shell scripts.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true,
	"ash": true, "fish": true, "tcsh": true, "csh": true, "yash": true, "posh": true, "rbash": true}

// interpreter describes how a program takes inline code.
type interpreter struct {
	lang    string
	code    string // short options whose value is code
	long    string // long options (without dashes) whose value is code
	valued  string // other short options that take a value
	lvalued string // other long options that take a value
	module  string // short options that run a module or file instead of stdin
	// stdin: the commands always come from standard input (operands are
	// files to work on or times); edits: the operands are files it writes.
	stdin, edits bool
}

// interpreters take code inline (-c, -e, …) or from their standard input.
var interpreters = map[string]interpreter{
	"python":    {lang: "python", code: "c", valued: "WXQ", module: "m"},
	"node":      {lang: "node", code: "ep", long: "eval print", valued: "r", lvalued: "require import loader input-type"},
	"nodejs":    {lang: "node", code: "ep", long: "eval print", valued: "r", lvalued: "require import loader input-type"},
	"bun":       {lang: "bun", code: "ep", long: "eval print"},
	"perl":      {lang: "perl", code: "eE", valued: "IMmdDxCl0i"},
	"ruby":      {lang: "ruby", code: "e", valued: "IrCEFKTWx"},
	"php":       {lang: "php", code: "rBRE", valued: "cdzF", module: "f"},
	"lua":       {lang: "lua", code: "e", valued: "l"},
	"luajit":    {lang: "lua", code: "e", valued: "lbj"},
	"Rscript":   {lang: "R", code: "e"},
	"R":         {lang: "R", code: "e"},
	"osascript": {lang: "AppleScript", code: "e", valued: "ls"},
	"groovy":    {lang: "groovy", code: "e"},
	"julia":     {lang: "julia", code: "eE", lvalued: "project"},
	"elixir":    {lang: "elixir", code: "e", long: "eval"},
	"tclsh":     {lang: "tcl"},
	"wish":      {lang: "tcl"},
	"expect":    {lang: "expect", code: "c"},
	"dc":        {lang: "dc", code: "e", long: "expression", module: "f"},
	"gdb":       {lang: "gdb", module: "x", stdin: true},
	"ed":        {lang: "ed", stdin: true, edits: true},
	"ex":        {lang: "ex", stdin: true, edits: true},
	"at":        {lang: "at", valued: "qt", module: "f", stdin: true},
	"batch":     {lang: "batch", valued: "qt", module: "f", stdin: true},
}

var versionedPython = regexp.MustCompile(`^(python|pypy)[0-9.]*$`)

// interp returns the interpreter a program name is, if any.
func interp(name string) (interpreter, bool) {
	if it, ok := interpreters[name]; ok {
		return it, true
	}
	if versionedPython.MatchString(name) {
		return interpreters["python"], true
	}
	switch strings.ToLower(name) {
	case "pwsh", "powershell", "powershell.exe", "pwsh.exe":
		return interpreter{lang: "PowerShell"}, true
	}
	return interpreter{}, false
}

// stdinFrom names where a program reading code from its standard input
// gets it; "" when that is nothing loopx must look at.
func stdinFrom(stdin stdinKind) string {
	switch stdin {
	case stdinPipe:
		return "input piped into"
	case stdinInline:
		return "here-document or here-string into"
	case stdinFile:
		return "a file redirected into"
	}
	return ""
}

// heredoc is the here-document or here-string a command reads, as text,
// and whether loopx can read it (no expansions in it).
func (r *reader) heredoc(rds []*syntax.Redirect) (string, bool) {
	for i := len(rds) - 1; i >= 0; i-- {
		rd := rds[i]
		var w *syntax.Word
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			w = rd.Hdoc
		case syntax.WordHdoc:
			w = rd.Word
		default:
			continue
		}
		if w == nil {
			return "", true
		}
		var b strings.Builder
		for _, p := range w.Parts {
			switch p := p.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				if p.Dollar {
					return "", false
				}
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				for _, q := range p.Parts {
					l, ok := q.(*syntax.Lit)
					if !ok {
						return "", false
					}
					unescapeQuoted(&b, l.Value)
				}
			default:
				return "", false
			}
		}
		return b.String(), true
	}
	return "", false
}

// effects records what a simple command (after unwrap; name is its base
// name, ws its words) writes, runs or hides; in are the directories the
// statement runs in and here those of this command (env -C). It returns
// where the next command runs when this one succeeds and fails.
func (r *reader) effects(name string, ws []word, in, here dirs, stdin stdinKind, rds []*syntax.Redirect) (ok, fail dirs) {
	args := ws[1:]
	write := func(w word) { r.writeTarget(w, here, name+" target") }
	writeAll := func(ops []word) {
		for _, w := range ops {
			write(w)
		}
	}
	if shells[name] {
		r.shell(name, args, here, stdin, rds)
		return in, in
	}
	if name == "gdb" {
		r.gdb(args)
	}
	if name == "lldb" {
		for _, a := range args { // -o CMD, -oCMD, --one-line[-…]=CMD, -s FILE, --source…
			if strings.HasPrefix(a.s, "--one-line") || strings.HasPrefix(a.s, "--source") ||
				(len(a.s) > 1 && a.s[0] == '-' && a.s[1] != '-' && strings.IndexByte("oOkKsS", a.s[1]) >= 0) {
				r.opaquef("lldb %s runs debugger commands (platform shell runs programs)", r.snippet(a))
			}
		}
	}
	if it, ok := interp(name); ok {
		r.interpret(name, it, args, stdin, here)
		return in, in
	}
	switch name {
	case "cd", "pushd":
		_, ops := scanOpts(args, "", "", false)
		if len(ops) == 0 || (name == "pushd" && strings.HasPrefix(ops[0].s, "+")) {
			return dirs{unknownDir}, in
		}
		return r.cdTo(ops[0], in), in
	case "popd":
		return dirs{unknownDir}, in
	case "eval":
		return r.readScript(joinWords(args), in, "eval")
	case "source", ".":
		if len(args) > 0 {
			switch f := args[0]; {
			case f.dyn&dynProc != 0:
				r.opaquef("%s of a process substitution runs the output of a command", name)
			case (f.s == "/dev/stdin" || f.s == "-" || strings.HasPrefix(f.s, "/dev/fd/") || strings.HasPrefix(f.s, "/proc/self/fd/")) && stdinFrom(stdin) != "":
				r.opaquef("%s %s a shell (%s)", stdinFrom(stdin), name, f.s)
			default:
				r.scriptFile(name, f, here)
			}
		}
	case "trap":
		_, ops := scanOpts(args, "", "", false)
		if len(ops) > 1 && ops[0].s != "-" {
			r.readScript(ops[0], here, "trap")
		}
	case "alias":
		for _, a := range args {
			if strings.Contains(a.s, "=") {
				r.opaquef("alias %s defines a command loopx cannot follow", a.s)
			}
		}
	case "hash":
		if opts, _ := scanOpts(args, "p", "", false); hasOpt(opts, "-p") {
			r.opaquef("hash -p changes which program a name runs")
		}
	case "enable":
		if opts, _ := scanOpts(args, "f", "", false); hasOpt(opts, "-f") {
			r.opaquef("enable -f loads a shared library into the shell")
		}
	case "rm", "rmdir", "unlink", "tee", "sponge", "trash", "trash-put", "sudoedit", "mkfifo", "mknod", "mkdir", "touch", "shred", "truncate", "mktemp":
		valued := map[string]string{"mkfifo": "m", "mknod": "m", "mkdir": "m", "touch": "dt", "shred": "ns", "truncate": "sr", "mktemp": "p"}[name]
		opts, ops := scanOpts(args, valued, "mode date reference size suffix tmpdir", true)
		writeAll(ops)
		writeAll(optVals(opts, "-p", "--tmpdir"))
	case "mv", "cp", "install", "ln":
		valued := map[string]string{"mv": "tS", "cp": "tS", "install": "tSmog", "ln": "tS"}[name]
		opts, ops := scanOpts(args, valued, "target-directory suffix mode owner group", true)
		// mv removes its sources; a link (ln, cp -l/-s) makes its source
		// writable under another name: their sources count as writes too.
		links := name == "ln" || (name == "cp" && hasOpt(opts, "-l", "--link", "-s", "--symbolic-link"))
		// cp that copies a symlink as a symlink (-P, -d, -a, -R/-r
		// without -L, --preserve=links) makes a new name for the link's
		// target: its sources count as writes too (a write resolves them).
		if name == "cp" && !hasOpt(opts, "-L", "--dereference") &&
			(hasOpt(opts, "-P", "--no-dereference", "-d", "-a", "--archive", "-R", "-r", "--recursive") || preservesLinks(opts)) {
			links = true
		}
		// A relative symlink target is read from the link's own
		// directory, not the working directory: ln -s ../loopx d/l links
		// d/l to loopx. The link is the last operand, or a name inside it
		// (or inside the -t directory) when it is a directory.
		if symbolic := name == "ln" && hasOpt(opts, "-s", "--symbolic") || name == "cp" && hasOpt(opts, "-s", "--symbolic-link"); symbolic && len(ops) > 0 {
			var at []string
			if t := optVals(opts, "-t", "--target-directory"); len(t) > 0 {
				at = []string{t[0].s}
			} else if len(ops) > 1 {
				at = []string{path.Dir(ops[len(ops)-1].s), ops[len(ops)-1].s}
			}
			srcs := ops
			if len(optVals(opts, "-t", "--target-directory")) == 0 && len(ops) > 1 {
				srcs = ops[:len(ops)-1]
			}
			for _, src := range srcs {
				if src.dyn != 0 || path.IsAbs(src.s) || strings.HasPrefix(src.s, "~") {
					continue
				}
				for _, d := range at {
					w := src
					w.s = path.Join(d, src.s)
					write(w)
				}
			}
		}
		switch t := optVals(opts, "-t", "--target-directory"); {
		case len(t) > 0:
			r.opaquef("%s -t writes into the directory %s", name, r.snippet(t[0]))
			writeAll(t)
			if name == "mv" || links {
				writeAll(ops)
			}
		case name == "mv" || links || (name == "install" && hasOpt(opts, "-d", "--directory")):
			writeAll(ops)
			if name == "ln" && len(ops) == 1 { // ln SOURCE links it into the working directory
				w := ops[0]
				w.s = base(w.s)
				write(w)
			}
		case len(ops) > 1:
			write(ops[len(ops)-1])
		case len(ops) == 1 && name == "ln":
			w := ops[0]
			w.s = base(w.s)
			write(w)
		}
	case "chmod", "chown", "chgrp", "chattr", "chcon", "setfacl":
		var ops []word
		for _, a := range args { // chmod -w f: a mode, not an option
			if !strings.HasPrefix(a.s, "-") || (name == "chmod" && len(a.s) > 1 && strings.Trim(a.s[1:], "rwxXst") == "") {
				ops = append(ops, a)
			}
		}
		opts, _ := scanOpts(args, "", "reference from", true)
		if hasOpt(opts, "--reference") || name == "setfacl" {
			writeAll(ops)
		} else if len(ops) > 1 {
			writeAll(ops[1:])
		}
	case "dd":
		for _, a := range args {
			if strings.HasPrefix(a.s, "of=") {
				a.s = a.s[3:]
				write(a)
			}
		}
	case "sed":
		r.sed(args, here)
	case "awk", "gawk", "mawk", "nawk":
		r.awk(name, args, here)
	case "rsync", "scp":
		// rsync's -l, -o, -c, -P, -S, -F take no value; scp's -c, -F, -i,
		// -J, -l, -o, -P, -S do.
		valued := map[string]string{"rsync": "efBTM", "scp": "cFiJloPSD"}[name]
		opts, ops := scanOpts(args, valued, "rsh rsync-path filter exclude include files-from exclude-from include-from temp-dir partial-dir backup-dir log-file password-file chmod chown timeout port compare-dest copy-dest link-dest out-format suffix bwlimit info debug usermap groupmap block-size max-size min-size write-batch only-write-batch read-batch remote-option", true)
		if name == "rsync" {
			for _, e := range optVals(opts, "-e", "--rsh") {
				r.readScript(e, here, "rsync -e")
			}
		}
		r.sshOptions(opts)
		if name == "scp" && hasOpt(opts, "-S", "-F", "-D") {
			r.opaquef("scp -S/-F/-D names the program (or the ssh config) it runs")
		}
		writeAll(optVals(opts, "--log-file", "--write-batch", "--only-write-batch", "--backup-dir"))
		if len(ops) > 1 {
			if name == "rsync" || slices.ContainsFunc(ops[:len(ops)-1], func(w word) bool { return isRemote(w.s) }) {
				r.opaquef("%s writes files loopx cannot list into %s", name, r.snippet(ops[len(ops)-1]))
			}
			if d := ops[len(ops)-1]; !isRemote(d.s) {
				write(d)
			}
			if hasOpt(opts, "--remove-source-files", "--remove-sent-files") {
				for _, src := range ops[:len(ops)-1] {
					if !isRemote(src.s) {
						write(src)
					}
				}
			}
		}
	case "ssh", "sftp":
		opts, _ := scanOpts(args, "bBcDEeFiIJlLmOoPpQRSwW", "", false)
		r.sshOptions(opts)
	case "tar", "bsdtar", "gtar":
		r.tar(name, args, here)
	case "unzip":
		opts, ops := scanOpts(args, "dxP", "", true)
		d := optVals(opts, "-d")
		switch {
		case hasOpt(opts, "-l", "-t", "-v", "-Z", "-p", "-c", "-z"):
		case len(d) > 0:
			r.opaquef("unzip extracts files named inside the archive (loopx cannot list them) into %s", r.snippet(d[0]))
			writeAll(d)
		default:
			r.opaquef("unzip extracts files named inside %s into the working directory (name one with -d)", firstWord(ops, "the archive"))
		}
	case "7z", "7za", "7zz":
		if len(args) > 0 && (args[0].s == "x" || args[0].s == "e") {
			found := false
			for _, a := range args[1:] {
				if strings.HasPrefix(a.s, "-o") && len(a.s) > 2 {
					a.s, found = a.s[2:], true
					r.opaquef("7z extracts files named inside the archive (loopx cannot list them) into %s", a.s)
					write(a)
				}
			}
			if !found {
				r.opaquef("7z extracts files named inside the archive into the working directory (name one with -o)")
			}
		}
	case "pax":
		if opts, _ := scanOpts(args, "fsopxbBG", "", true); hasOpt(opts, "-r") {
			r.opaquef("pax -r extracts files named inside the archive into the working directory")
		}
	case "ar":
		if len(args) > 0 && !strings.HasPrefix(args[0].s, "-") && strings.ContainsAny(args[0].s, "x") || len(args) > 0 && strings.HasPrefix(args[0].s, "-") && strings.Contains(args[0].s, "x") {
			r.opaquef("ar x extracts the members named inside the archive into the working directory")
		}
	case "cpio":
		if opts, _ := scanOpts(args, "DEFHIMOR", "directory file", true); hasOpt(opts, "-i", "--extract") {
			if d := optVals(opts, "-D", "--directory"); len(d) > 0 {
				r.opaquef("cpio -i extracts files named inside the archive (loopx cannot list them) into %s", r.snippet(d[0]))
				writeAll(d)
			} else {
				r.opaquef("cpio -i extracts files named inside the archive into the working directory")
			}
		}
	case "patch":
		opts, ops := scanOpts(args, "pdoiBDFrVYzgx", "directory output input prefix reject-file", true)
		switch {
		case hasOpt(opts, "--dry-run", "-C", "--check"):
		case len(optVals(opts, "-o", "--output")) > 0:
			writeAll(optVals(opts, "-o", "--output"))
		case len(ops) > 0:
			write(ops[0])
		default:
			r.opaquef("patch writes the files named inside the patch")
		}
	case "curl":
		r.curl(args, here)
	case "wget":
		r.wget(args, here)
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "lz4", "compress", "uncompress", "pigz", "unpigz":
		opts, ops := scanOpts(args, "oST", "suffix output", true)
		if hasOpt(opts, "-c", "--stdout", "--to-stdout", "-t", "--test", "-l", "--list") {
			break
		}
		writeAll(ops)
		writeAll(optVals(opts, "-o", "--output"))
	case "go":
		r.golang(args, here)
	case "sort", "shuf", "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "tcc":
		for i, a := range args {
			switch {
			case name == "sort" && strings.HasPrefix(a.s, "--compress-prog"):
				r.opaquef("sort --compress-program runs a program")
			case (a.s == "-o" || a.s == "--output") && i+1 < len(args):
				write(args[i+1])
			case strings.HasPrefix(a.s, "--output="):
				a.s = a.s[len("--output="):]
				write(a)
			case strings.HasPrefix(a.s, "-o") && len(a.s) > 2 && name != "go":
				a.s = a.s[2:]
				write(a)
			}
		}
	case "vi", "vim", "nvim", "view", "nano", "emacs", "pico", "micro", "joe", "kak", "hx", "helix":
		for i, a := range args {
			switch {
			case a.s == "-c" || a.s == "--cmd" || a.s == "-S" || a.s == "--eval" || a.s == "-x" || (strings.HasPrefix(a.s, "+") && len(a.s) > 1):
				r.opaquef("%s runs editor commands (%s)", name, a.s)
			case strings.HasPrefix(a.s, "-"):
			case i > 0 && (args[i-1].s == "-c" || args[i-1].s == "--cmd" || args[i-1].s == "-S" || args[i-1].s == "--eval"):
			default:
				write(a)
			}
		}
		if (name == "vi" || name == "vim" || name == "nvim") && stdinFrom(stdin) != "" {
			r.opaquef("%s %s reads editor commands", stdinFrom(stdin), name)
		}
	case "find":
		r.find(args, here)
	case "xargs":
		r.opaquef("xargs runs a command with arguments read from its input")
		_, rest := scanOpts(args, "adEILnPs", "arg-file delimiter eof max-lines max-args max-procs max-chars process-slot-var", false)
		if len(rest) > 0 {
			r.simple(rest, here, stdinNone, nil)
		}
	case "watch":
		r.opaquef("watch runs a command repeatedly")
		_, rest := scanOpts(args, "nqd", "interval equexit", false)
		if len(rest) > 0 {
			r.readScript(joinWords(rest), here, "watch")
		}
	case "parallel", "sem":
		r.opaquef("%s runs commands built from its input or arguments", name)
		_, rest := scanOpts(args, "jNnSIdEaL", "jobs sshlogin delimiter arg-file", false)
		var cmd []word
		for _, w := range rest {
			if strings.HasPrefix(w.s, ":::") {
				break
			}
			cmd = append(cmd, w)
		}
		if len(cmd) > 0 {
			r.readScript(joinWords(cmd), here, name)
		}
	case "script":
		opts, ops := scanOpts(args, "cOIBTEm", "command log-out log-in log-io log-timing echo logging-format", true)
		for _, c := range optVals(opts, "-c", "--command") {
			r.opaquef("script -c runs a command in a terminal")
			r.readScript(c, here, "script -c")
		}
		writeAll(ops)
		writeAll(optVals(opts, "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing"))
	case "su", "runuser":
		opts, rest := scanOpts(args, "csgGuw", "command shell group supp-group user whitelist-environment session-command", true)
		cs := optVals(opts, "-c", "--command", "--session-command")
		for _, c := range cs {
			r.opaquef("%s -c runs a command as another user", name)
			r.readScript(c, here, name+" -c")
		}
		if len(cs) == 0 {
			if name == "runuser" && len(rest) > 0 && hasOpt(opts, "-u", "--user") {
				r.opaquef("runuser runs a command as another user")
				r.simple(rest, here, stdinNone, nil)
			} else {
				r.opaquef("%s opens a shell that reads commands loopx cannot see", name)
			}
		}
	case "sg":
		r.opaquef("sg runs a command as another group")
		_, rest := scanOpts(args, "c", "", true)
		if len(rest) > 1 {
			r.readScript(joinWords(rest[1:]), here, "sg")
		}
	case "systemd-run":
		r.opaquef("systemd-run runs a command as a service")
		_, rest := scanOpts(args, "pEuMH", "unit property setenv description slice uid gid working-directory on-calendar on-active machine host", false)
		if len(rest) > 0 {
			r.simple(rest, here, stdinNone, nil)
		}
	case "crontab":
		if opts, ops := scanOpts(args, "u", "", true); len(ops) > 0 || hasOpt(opts, "-e") || stdinFrom(stdin) != "" {
			r.opaquef("crontab schedules commands to run later")
		}
	case "tmux", "screen":
		for _, a := range args {
			switch a.s {
			case "send-keys", "send", "new-session", "new", "new-window", "neww", "split-window", "splitw", "run-shell", "run",
				"respawn-pane", "respawnp", "respawn-window", "respawnw", "pipe-pane", "pipep", "display-popup", "popup", "if-shell", "if",
				"-X", "-dm", "-dmS", "-Dm", "-DmS":
				r.opaquef("%s runs commands in a terminal (%s)", name, a.s)
			}
		}
	case "socat":
		for _, a := range args {
			if l := strings.ToLower(a.s); strings.Contains(l, "exec:") || strings.Contains(l, "system:") {
				r.opaquef("socat runs a command (%s)", a.s)
			}
		}
	case "nc", "ncat", "netcat":
		if opts, _ := scanOpts(args, "ecpsw", "exec sh-exec lua-exec", true); hasOpt(opts, "-e", "-c", "--exec", "--sh-exec", "--lua-exec") {
			r.opaquef("%s runs a command for a connection", name)
		}
	case "sqlite3":
		_, ops := scanOpts(args, "", "cmd init separator newline nullvalue", true)
		for _, a := range args {
			if strings.Contains(a.s, ".shell") || strings.Contains(a.s, ".system") {
				r.opaquef("sqlite3 .shell runs a command")
			}
		}
		if len(ops) > 0 {
			write(ops[0])
		}
	case "make", "gmake":
		opts, _ := scanOpts(args, "fCIjloWE", "file makefile directory include-dir jobs load-average old-file what-if eval", true)
		if hasOpt(opts, "-E", "--eval") {
			r.opaquef("%s --eval runs make code given inline", name)
		}
		for _, d := range optVals(opts, "-C", "--directory") {
			r.writeDir(d, here, name+" -C directory")
		}
		for _, a := range args { // make SHELL=/tmp/x runs every recipe with it
			if n, _, ok := strings.Cut(a.s, "="); ok && (n == "SHELL" || n == ".SHELLFLAGS" || n == "MAKEFLAGS" || n == "MAKESHELL") {
				r.opaquef("%s %s= changes what runs every recipe", name, n)
			}
		}
		for _, f := range optVals(opts, "-f", "--file", "--makefile") {
			if isStdinFile(f.s) && stdinFrom(stdin) != "" {
				r.opaquef("%s a makefile (%s -f %s)", stdinFrom(stdin), name, f.s)
			} else {
				r.scriptFile(name, f, here)
			}
		}
	case "zip":
		opts, ops := scanOpts(args, "bnstxiOPZ", "temp-path suffixes from-crlf exclude include output-file password", true)
		if len(ops) > 0 {
			write(ops[0]) // the archive
		}
		writeAll(optVals(opts, "-O", "--output-file"))
		if hasOpt(opts, "-m", "--move") && len(ops) > 1 {
			writeAll(ops[1:])
		}
		if hasOpt(opts, "-T", "--test") {
			for _, a := range args {
				if a.s == "-TT" || strings.HasPrefix(a.s, "--unzip-command") {
					r.opaquef("zip -TT runs a command")
				}
			}
		}
	case "deno":
		if len(args) > 0 && args[0].s == "eval" {
			r.opaquef("inline deno code (eval)")
		}
		if len(args) > 1 && args[0].s == "run" && args[len(args)-1].s == "-" && stdinFrom(stdin) != "" {
			r.opaquef("%s an interpreter (deno)", stdinFrom(stdin))
		}
	case "rename", "prename", "file-rename":
		r.opaquef("%s runs a perl expression over file names", name)
	case "chroot":
		r.opaquef("chroot runs a command under another root directory")
		if _, rest := scanOpts(args, "", "userspec groups", false); len(rest) > 1 {
			r.simple(rest[1:], here, stdinNone, nil)
		}
	case "less", "more":
		opts, _ := scanOpts(args, "oObhjkpPtTxyz", "log-file LOG-FILE", true)
		for _, f := range optVals(opts, "-o", "-O", "--log-file", "--LOG-FILE") {
			r.writeTarget(f, here, name+" log file")
		}
	case "rg":
		if opts, _ := scanOpts(args, "", "pre", true); hasOpt(opts, "--pre") {
			r.opaquef("rg --pre runs a command over every file searched")
		}
	case "fd", "fdfind":
		if opts, _ := scanOpts(args, "xX", "exec exec-batch", true); hasOpt(opts, "-x", "-X", "--exec", "--exec-batch") {
			r.opaquef("%s --exec runs a command for every file found", name)
		}
	case "tree":
		opts, _ := scanOpts(args, "oLPIH", "", true)
		for _, f := range optVals(opts, "-o") {
			r.writeTarget(f, here, "tree -o target")
		}
	default:
		if !readOnly[name] {
			r.unmodelled(name, args, here)
		}
	}
	return in, in
}

func firstWord(ws []word, alt string) string {
	if len(ws) > 0 {
		return ws[0].s
	}
	return alt
}

// isRemote reports an rsync or scp operand on another host (host:path,
// rsync://…).
func isRemote(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.Contains(s[:i], "/")
}

// sshOptions marks -o options that run local commands opaque.
func (r *reader) sshOptions(opts []opt) {
	for _, v := range optVals(opts, "-o") {
		k := strings.ToLower(strings.TrimSpace(v.s))
		if i := strings.IndexAny(k, "= \t"); i >= 0 {
			k = k[:i]
		}
		switch k {
		case "proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "match", "include", "remotecommand":
			r.opaquef("ssh -o %s runs a local command", k)
		}
	}
}

// shell reads a shell's script: -c SCRIPT is read again; a script from a
// pipe, here-document or here-string is opaque (and read when literal); a
// script file is not read.
func (r *reader) shell(name string, args []word, here dirs, stdin stdinKind, rds []*syntax.Redirect) {
	cFlag, sFlag := false, false
	var ops []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--" || a.s == "-":
			sFlag = sFlag || a.s == "-"
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a.s, "--"):
			if a.s == "--rcfile" || a.s == "--init-file" {
				i++
			}
			if a.s == "--command" || strings.HasPrefix(a.s, "--command=") { // fish
				cFlag = true
				if v, ok := strings.CutPrefix(a.s, "--command="); ok {
					ops = append(ops, word{s: v, dyn: a.dyn, pos: a.pos, end: a.end})
				}
			}
		case len(a.s) > 1 && (a.s[0] == '-' || a.s[0] == '+'):
			if a.s[1:] == "o" || a.s[1:] == "O" {
				i++
				continue
			}
			cFlag = cFlag || (a.s[0] == '-' && strings.ContainsRune(a.s, 'c'))
			sFlag = sFlag || (a.s[0] == '-' && strings.ContainsRune(a.s, 's'))
		default:
			ops = append(ops, args[i:]...)
			i = len(args)
		}
	}
	switch {
	case cFlag:
		if len(ops) > 0 {
			r.readScript(ops[0], here, name+" -c")
		}
	case len(ops) > 0 && !sFlag && !isStdinFile(ops[0].s):
		r.scriptFile(name, ops[0], here)
		r.unmodelled(name, ops[1:], here)
	default:
		if from := stdinFrom(stdin); from != "" {
			r.opaquef("%s a shell (%s)", from, name)
			if body, ok := r.heredoc(rds); ok && stdin == stdinInline {
				if _, _, err := r.scriptDirs(body, here, stdinNone); err != nil {
					r.opaquef("%s here-document: %v", name, err)
				}
			}
		}
	}
}

// interpret marks an interpreter's inline code, or code from a pipe or
// here-document, opaque.
func (r *reader) interpret(name string, it interpreter, args []word, stdin stdinKind, here dirs) {
	if it.lang == "PowerShell" {
		for _, a := range args {
			switch strings.ToLower(a.s) {
			case "-c", "-command", "-encodedcommand", "-ec", "-e", "-enc", "-commandwithargs", "-cwa":
				r.opaquef("inline PowerShell code (%s)", a.s)
				return
			case "-":
				if from := stdinFrom(stdin); from != "" {
					r.opaquef("%s an interpreter (%s)", from, name)
				}
				return
			case "-file", "-f":
				return
			}
		}
		if len(args) == 0 && stdinFrom(stdin) != "" {
			r.opaquef("%s an interpreter (%s)", stdinFrom(stdin), name)
		}
		return
	}
	script := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "-":
			if from := stdinFrom(stdin); from != "" {
				r.opaquef("%s an interpreter (%s)", from, name)
			}
			return
		case a.s == "--":
			script = i+1 < len(args)
			i = len(args)
		case strings.HasPrefix(a.s, "--"):
			n, _, hasVal := strings.Cut(a.s[2:], "=")
			if listed(it.long, n) {
				r.opaquef("inline %s code (--%s)", it.lang, n)
				return
			}
			if !hasVal && listed(it.lvalued, n) {
				i++
			}
		case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
			for j := 1; j < len(a.s); j++ {
				c := a.s[j]
				switch {
				case strings.IndexByte(it.code, c) >= 0:
					r.opaquef("inline %s code (-%c)", it.lang, c)
					if name == "perl" {
						r.perlInPlace(args, here)
					}
					return
				case strings.IndexByte(it.module, c) >= 0: // a module or file runs
					if j == len(a.s)-1 {
						i++
					}
					if i+1 < len(args) {
						r.unmodelled(name, args[i+1:], here)
					}
					return
				case strings.IndexByte(it.valued, c) >= 0:
					if j == len(a.s)-1 && i+1 < len(args) && !strings.HasPrefix(args[i+1].s, "-") {
						i++
					}
					j = len(a.s)
				}
			}
		default:
			if it.edits {
				r.writeTarget(a, here, name+" target")
			}
			if !it.stdin {
				if isStdinFile(a.s) {
					if from := stdinFrom(stdin); from != "" {
						r.opaquef("%s an interpreter (%s)", from, name)
					}
					return
				}
				r.scriptFile(name, a, here)
				r.unmodelled(name, args[i+1:], here)
				script = true
				i = len(args)
			}
		}
	}
	if !script {
		if from := stdinFrom(stdin); from != "" {
			r.opaquef("%s an interpreter (%s)", from, name)
		}
	}
}

// isStdinFile reports a file name that is the standard input.
func isStdinFile(s string) bool {
	return s == "-" || s == "/dev/stdin" || s == "/dev/fd/0" || s == "/proc/self/fd/0"
}

// scriptFile checks the script file a shell or interpreter runs: one built
// from a substitution (bash <(curl …), python3 "$f") or written by the
// same command line is opaque.
func (r *reader) scriptFile(name string, f word, here dirs) {
	switch {
	case f.dyn&dynProc != 0:
		r.opaquef("%s runs the output of a command (%s)", name, r.snippet(f))
	case f.dyn != 0:
		r.opaquef("%s runs a script named by %s", name, r.snippet(f))
	case r.writtenHere(f, here):
		r.opaquef("%s runs %s, which this command line writes", name, f.s)
	}
}

// writtenHere reports whether the file w names (from the directories
// here) is one the command line writes before it.
func (r *reader) writtenHere(w word, here dirs) bool {
	for _, d := range here {
		p := w.s
		if d != "" && d != unknownDir && !path.IsAbs(p) {
			p = path.Join(d, p)
		}
		for _, x := range r.cl.Writes {
			if path.Clean(x) == path.Clean(p) {
				return true
			}
		}
	}
	return false
}

// perlInPlace records the files perl -i edits: the operands after the code.
func (r *reader) perlInPlace(args []word, here dirs) {
	inPlace := false
	for _, a := range args {
		if strings.HasPrefix(a.s, "-") && !strings.HasPrefix(a.s, "--") {
			if i := strings.IndexByte(a.s, 'i'); i > 0 && !strings.ContainsAny(a.s[:i], "eE") {
				inPlace = true
			}
		}
	}
	if !inPlace {
		return
	}
	_, ops := scanOpts(args, "eEIMmdDxC", "", true)
	for _, w := range ops {
		r.writeTarget(w, here, "perl -i target")
	}
}

// sed records the files sed -i edits and marks scripts that run commands
// (e, s///e) or write files (w, s///w) opaque.
func (r *reader) sed(args []word, here dirs) {
	opts, ops := scanOpts(args, "efl", "expression file line-length", true)
	for _, f := range optVals(opts, "-f", "--file") {
		r.scriptFile("sed -f", f, here) // a script file is read like sh x.sh
	}
	scripts := optVals(opts, "-e", "--expression")
	if len(scripts) == 0 && len(optVals(opts, "-f", "--file")) == 0 && len(ops) > 0 {
		scripts, ops = ops[:1], ops[1:]
	}
	for _, s := range scripts {
		if s.dyn != 0 {
			r.opaquef("sed script built from %s", r.snippet(s))
		} else if sedRuns(s.s) {
			r.opaquef("sed script runs a command or writes a file (e, w): %s", r.snippet(s))
		}
	}
	inPlace := false
	for _, a := range args { // -i, -i.bak, -Ei, --in-place[=SUFFIX]
		inPlace = inPlace || strings.HasPrefix(a.s, "--in-place") ||
			(strings.HasPrefix(a.s, "-") && !strings.HasPrefix(a.s, "--") && strings.ContainsRune(strings.SplitN(a.s, ".", 2)[0], 'i'))
	}
	if inPlace {
		for _, w := range ops {
			r.writeTarget(w, here, "sed -i target")
		}
	}
}

// sedRuns reports whether a sed script has a command that runs a command
// (e, s///e) or writes a file (w, W, s///w).
func sedRuns(s string) bool {
	skipRe := func(i int, d byte) int { // past the next unescaped d
		for ; i < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] == d || (d != '\n' && s[i] == '\n') {
				return i + 1
			}
		}
		return len(s)
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case strings.IndexByte(" \t\n;{}!,~+$0123456789", c) >= 0:
			i++
		case c == '/':
			i = skipRe(i+1, '/')
		case c == '\\' && i+1 < len(s):
			i = skipRe(i+2, s[i+1])
		case c == 'e' || c == 'w' || c == 'W':
			return true
		case c == 's' || c == 'y':
			if i+1 >= len(s) {
				return false
			}
			d := s[i+1]
			i = skipRe(skipRe(i+2, d), d)
			for ; i < len(s) && strings.IndexByte(";\n}", s[i]) < 0; i++ {
				if c == 's' && (s[i] == 'e' || s[i] == 'w' || s[i] == 'W') {
					return true
				}
			}
		case strings.IndexByte("aicbtT:rRlLqQv#", c) >= 0: // an argument to the end of the line
			for i < len(s) && s[i] != '\n' && (s[i] != ';' || strings.IndexByte("aic#", c) >= 0) {
				i++
			}
		default:
			i++
		}
	}
	return false
}

// awkRuns matches awk programs that run commands (system(), | to or from a
// command) or write files (print > file).
var awkRuns = regexp.MustCompile(`\bsystem\s*\(|(^|[^|])\|($|[^|])|\|&|\b(print|printf)\b[^;{}\n]*>`)

// awk marks programs that run commands or write files opaque; gawk -i
// inplace writes its operands.
func (r *reader) awk(name string, args []word, here dirs) {
	opts, ops := scanOpts(args, "FvfeiEl", "field-separator assign file source include exec load", true)
	for _, f := range optVals(opts, "-f", "--file", "-E", "--exec", "-i", "--include") {
		r.scriptFile(name+" "+"-f", f, here) // a program file is read like sh x.sh
	}
	progs := optVals(opts, "-e", "--source")
	if len(progs) == 0 && len(optVals(opts, "-f", "--file", "-E", "--exec")) == 0 && len(ops) > 0 {
		progs, ops = ops[:1], ops[1:]
	}
	for _, p := range progs {
		if p.dyn != 0 {
			r.opaquef("%s program built from %s", name, r.snippet(p))
		} else if awkRuns.MatchString(p.s) {
			r.opaquef("%s program runs a command or writes a file: %s", name, r.snippet(p))
		}
	}
	for _, inc := range optVals(opts, "-i", "--include") {
		if inc.s == "inplace" || inc.s == "inplace.awk" {
			for _, w := range ops {
				r.writeTarget(w, here, name+" -i inplace target")
			}
		}
	}
}

// tar records where an extraction or a created archive writes and marks
// options that run commands opaque.
func (r *reader) tar(name string, args []word, here dirs) {
	if len(args) > 0 && !strings.HasPrefix(args[0].s, "-") && args[0].dyn == 0 { // old style: tar xzf a.tgz
		first := args[0]
		first.s = "-" + first.s
		args = append([]word{first}, args[1:]...)
	}
	opts, ops := scanOpts(args, "fCbIFgHKLNTVX", "file directory blocking-factor use-compress-program info-script new-volume-script listed-incremental format starting-file tape-length files-from label exclude-from to-command checkpoint-action rsh-command rmt-command newer after-date exclude", true)
	for _, o := range opts {
		switch o.name {
		case "--to-command", "-I", "--use-compress-program", "-F", "--info-script", "--new-volume-script", "--rsh-command", "--rmt-command":
			r.opaquef("%s %s runs a command", name, o.name)
		case "--checkpoint-action":
			if strings.Contains(o.val.s, "exec") {
				r.opaquef("%s %s runs a command", name, o.name)
			}
		}
	}
	extract := hasOpt(opts, "-x", "--extract", "--get")
	create := hasOpt(opts, "-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate")
	switch {
	case extract && !hasOpt(opts, "-O", "--to-stdout"):
		dirsC := optVals(opts, "-C", "--directory")
		if len(dirsC) == 0 {
			r.opaquef("%s extracts files named inside the archive into the working directory (name one with -C)", name)
			return
		}
		r.opaquef("%s extracts files named inside the archive (loopx cannot list them) into %s", name, r.snippet(dirsC[len(dirsC)-1]))
		for _, d := range dirsC {
			r.writeTarget(d, here, name+" -C target")
		}
		if d := dirsC[len(dirsC)-1]; d.dyn == 0 { // named members, under the last -C
			for _, m := range ops {
				m.s = path.Join(d.s, m.s)
				r.writeTarget(m, here, name+" member")
			}
		}
	case create:
		for _, f := range optVals(opts, "-f", "--file") {
			if f.s != "-" {
				r.writeTarget(f, here, name+" -f target")
			}
		}
		if hasOpt(opts, "--remove-files") { // the archived files are removed
			from := here
			for _, d := range optVals(opts, "-C", "--directory") {
				from = r.cdTo(d, here)
			}
			for _, m := range ops {
				r.writeTarget(m, from, name+" --remove-files target")
			}
		}
	}
}

// curl records the files curl writes.
func (r *reader) curl(args []word, here dirs) {
	opts, ops := scanOpts(args, "oDcKdFHuAexXTbmwrCEUPQyYzt", "output output-dir dump-header cookie-jar trace trace-ascii stderr etag-save hsts alt-svc config data header user user-agent referer proxy request upload-file cookie max-time write-out range", true)
	out := r.outDir(opts, here)
	for _, f := range optVals(opts, "-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--etag-save", "--hsts", "--alt-svc") {
		if f.s != "-" {
			r.writeTarget(f, out, "curl output")
		}
	}
	for _, f := range optVals(opts, "-o", "--output") {
		if f.s != "-" && f.s != "/dev/null" {
			r.opaquef("curl writes a download loopx cannot see into %s", r.snippet(f))
			break
		}
	}
	if hasOpt(opts, "-J", "--remote-header-name") {
		r.opaquef("curl -J names the file it writes from the server's answer")
	}
	if hasOpt(opts, "-K", "--config") {
		r.opaquef("curl -K reads options (and output files) from a file")
	}
	if hasOpt(opts, "-O", "--remote-name", "--remote-name-all") {
		r.opaquef("curl -O writes a download loopx cannot see")
		for _, u := range ops {
			r.urlFile(u, out, "curl -O")
		}
	}
}

// outDir is where curl --output-dir puts relative outputs.
func (r *reader) outDir(opts []opt, here dirs) dirs {
	for _, d := range optVals(opts, "--output-dir") {
		r.writeTarget(d, here, "curl --output-dir")
		return r.cdTo(d, here)
	}
	return here
}

// urlFile records the file named by a URL's last path element.
func (r *reader) urlFile(u word, here dirs, what string) {
	if u.dyn != 0 {
		r.opaquef("%s writes a file named by %s", what, r.snippet(u))
		return
	}
	s := u.s
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	name := "index.html"
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
		name = s[i+1:]
	}
	r.writeTarget(word{s: name}, here, what+" output")
}

// wget records the files wget writes.
func (r *reader) wget(args []word, here dirs) {
	opts, ops := scanOpts(args, "OPoaietTwUQlADRIX", "output-document directory-prefix output-file append-output input-file tries timeout wait user-agent quota level accept reject include-directories exclude-directories header user password post-data body-data load-cookies save-cookies", true)
	for _, f := range optVals(opts, "-o", "--output-file", "-a", "--append-output", "--save-cookies") {
		r.writeTarget(f, here, "wget log")
	}
	dir := here
	for _, p := range optVals(opts, "-P", "--directory-prefix") {
		r.writeTarget(p, here, "wget -P target")
		dir = r.cdTo(p, here)
	}
	if docs := optVals(opts, "-O", "--output-document"); len(docs) > 0 {
		for _, d := range docs {
			if d.s != "-" && d.s != "/dev/null" {
				r.opaquef("wget writes a download loopx cannot see into %s", r.snippet(d))
				r.writeTarget(d, here, "wget -O target")
			}
		}
		return
	}
	if len(ops) > 0 && !hasOpt(opts, "--spider") {
		r.opaquef("wget writes a download loopx cannot see")
	}
	if hasOpt(opts, "-r", "--recursive", "-m", "--mirror", "-i", "--input-file", "--content-disposition") {
		if len(optVals(opts, "-P", "--directory-prefix")) == 0 {
			r.opaquef("wget writes files named by the server into the working directory (name one with -P)")
		}
		return
	}
	for _, u := range ops {
		r.urlFile(u, dir, "wget")
	}
}

// find records what find -delete and -fprint write and reads the commands
// -exec/-execdir/-ok/-okdir run (opaque: they run once per file found).
func (r *reader) find(args []word, here dirs) {
	i := 0
	for i < len(args) && (args[i].s == "-H" || args[i].s == "-L" || args[i].s == "-P" || strings.HasPrefix(args[i].s, "-O") || args[i].s == "-D") {
		if args[i].s == "-D" {
			i++
		}
		i++
	}
	var starts []word
	for ; i < len(args); i++ {
		s := args[i].s
		if strings.HasPrefix(s, "-") || s == "(" || s == "!" || s == "," {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []word{{s: "."}}
	}
	for ; i < len(args); i++ {
		switch s := args[i].s; s {
		case "-exec", "-execdir", "-ok", "-okdir":
			r.opaquef("find %s runs a command for every file found", s)
			j := i + 1
			for j < len(args) && args[j].s != ";" && args[j].s != "+" {
				j++
			}
			if j > i+1 {
				r.simple(args[i+1:j], here, stdinNone, nil)
			}
			i = j
		case "-delete":
			for _, st := range starts {
				r.writeTarget(st, here, "find -delete target")
			}
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if i+1 < len(args) {
				r.writeTarget(args[i+1], here, "find "+s+" target")
				i++
			}
		}
	}
}

// gitExecKeys are git configuration keys whose values run commands, load
// other configuration, or move the tree git writes.
var gitExecKeys = regexp.MustCompile(`(?i)^(alias\..+|core\.(pager|sshcommand|editor|fsmonitor|hookspath|askpass|gitproxy|alternaterefscommand|worktree)|pager\..+|diff\..+\.(command|textconv)|diff\.external|merge\..+\.driver|filter\..+\.(clean|smudge|process)|credential\..*helper|sequence\.editor|gpg\.program|gpg\..+\.program|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|proxy|vcs)|include\.path|includeif\..+\.path|sendemail\..+|web\.browser|browser\..+\.(cmd|path)|man\..+\.(cmd|path)|difftool\..+\.cmd|mergetool\..+\.cmd|ssh\.variant|protocol\..+|url\..+|http\..*proxy|init\.templatedir|receive\.procreceiverefs|instaweb\..+)$`)

// gitConfigKey marks a git configuration key that runs commands opaque.
func (r *reader) gitConfigKey(kv word, how string) {
	if kv.dyn != 0 {
		r.opaquef("git %s built from %s", how, r.snippet(kv))
		return
	}
	k, _, _ := strings.Cut(kv.s, "=")
	if gitExecKeys.MatchString(k) {
		r.opaquef("git %s %s can run commands", how, k)
	}
}

// gitGlobal reads git's global options (before the subcommand): it returns
// the index of the subcommand in ws and the directories git works in (-C,
// --work-tree), and marks options that run commands opaque.
func (r *reader) gitGlobal(ws []word, here dirs) (int, dirs) {
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
			}
		case strings.HasPrefix(a.s, "-c") && !strings.HasPrefix(a.s, "--"): // -cKEY=VAL is -c KEY=VAL
			r.gitConfigKey(word{s: a.s[2:], dyn: a.dyn, pos: a.pos, end: a.end}, "-c")
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
	return i, here
}

// git records what a git subcommand (args[0]) writes (moved: git -C or
// --work-tree changed the directory here) and marks those that
// run commands or rewrite the whole tree opaque.
func (r *reader) git(args []word, here dirs, moved bool) {
	if len(args) == 0 {
		return
	}
	sub, rest := args[0].s, args[1:]
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

// dashdash returns the index of "--" in ws, or -1.
func dashdash(ws []word) int {
	for i, w := range ws {
		if w.s == "--" {
			return i
		}
	}
	return -1
}

// goWrites are the go command's flags whose value is a file or directory
// it writes; goRunners those whose value is a program it runs.
var (
	goWrites  = map[string]bool{"o": true, "coverprofile": true, "cpuprofile": true, "memprofile": true, "blockprofile": true, "mutexprofile": true, "trace": true, "outputdir": true, "pkgdir": true, "modfile": true}
	goRunners = map[string]bool{"exec": true, "toolexec": true, "vettool": true}
)

// golang records what a go command writes (-o, -coverprofile, …: also as
// -test.X; -C changes the directory and counts as a write) and marks the
// flags that run another program (-exec, -toolexec, -vettool) opaque.
func (r *reader) golang(args []word, here dirs) {
	if _, ops := scanOpts(args, "C", "", false); len(ops) > 0 && ops[0].s == "env" {
		for _, a := range ops[1:] {
			if a.s == "-w" || a.s == "-u" {
				r.opaquef("go env %s changes go's settings (GOFLAGS, …) for every later go command", a.s)
			}
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a.s, "-") || a.s == "-" {
			continue
		}
		if a.s == "--" {
			return
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a.s, "-"), "=")
		name = strings.TrimPrefix(name, "test.")
		v := word{s: val, dyn: a.dyn, pos: a.pos, end: a.end}
		if !hasVal && i+1 < len(args) {
			if goWrites[name] || goRunners[name] || name == "C" || name == "ldflags" {
				i++
				v, hasVal = args[i], true
			}
		}
		switch {
		case goRunners[name]:
			r.opaquef("go -%s runs %s", name, firstWord([]word{v}, "another program"))
		case name == "ldflags" && (strings.Contains(v.s, "extld") || strings.Contains(v.s, "extar")):
			r.opaquef("go -ldflags %s names the external linker it runs", r.snippet(v))
		case !hasVal:
		case name == "C":
			r.writeDir(v, here, "go -C directory")
			here = r.cdTo(v, here)
		case goWrites[name]:
			r.writeTarget(v, here, "go -"+name+" target")
		}
	}
}

// gdb marks gdb commands given inline (-ex, -iex, --eval-command, …) and
// command files from a pipe opaque: gdb's `shell` runs anything.
func (r *reader) gdb(args []word) {
	for _, a := range args {
		n, _, _ := strings.Cut(strings.TrimLeft(a.s, "-"), "=")
		switch n {
		case "ex", "iex", "eval-command", "init-eval-command", "x", "ix", "command", "init-command", "p", "pid":
			if strings.HasPrefix(a.s, "-") {
				r.opaquef("gdb %s runs debugger commands (gdb's shell runs any command)", a.s)
				return
			}
		}
	}
}

// runnerCmds are programs with options that run other programs or code
// (go test -exec, make --eval, git -c, find -exec, tar --to-command, …):
// an argument that may yield such an option (an expansion at its start or
// unquoted) makes the command opaque.
var runnerCmds = map[string]bool{"go": true, "make": true, "gmake": true, "gdb": true, "cargo": true, "npm": true,
	"pnpm": true, "yarn": true, "npx": true, "git": true, "rsync": true, "scp": true, "ssh": true, "tar": true,
	"bsdtar": true, "gtar": true, "find": true, "sed": true, "zip": true, "docker": true, "kubectl": true, "bazel": true,
	"mvn": true, "gradle": true, "pip": true, "pip3": true, "uv": true, "pytest": true, "deno": true, "bun": true,
	"sort": true, "lldb": true}

// valueOpts are the options of runnerCmds whose value an expansion may be
// (it cannot become another option there).
var valueOpts = map[string]bool{"-m": true, "--message": true, "--author": true, "--date": true, "-b": true, "-B": true,
	"--format": true, "--pretty": true, "--grep": true, "-run": true, "-bench": true, "-count": true, "-timeout": true,
	"-tags": true, "-ldflags": true, "-gcflags": true, "-skip": true, "-p": true, "-parallel": true}

// optionArgs marks a runner command opaque when an argument built from an
// expansion may yield an option (go test $(cat pkgs) may be -toolexec=…).
func (r *reader) optionArgs(name string, ws []word) {
	if !runnerCmds[name] {
		return
	}
	for i := 1; i < len(ws); i++ {
		if w := ws[i]; w.optLike && !valueOpts[ws[i-1].s] {
			r.opaquef("%s argument built from %s may carry options that run commands", name, r.snippet(w))
			return
		}
	}
}

// readOnly are commands that write no file their arguments name (their
// output goes to standard output): their arguments are not mentioned.
var readOnly = map[string]bool{"cat": true, "head": true, "tail": true, "grep": true, "egrep": true, "fgrep": true,
	"ag": true, "ack": true, "wc": true, "diff": true, "cmp": true, "comm": true, "ls": true, "stat": true, "file": true,
	"echo": true, "printf": true, "pwd": true, "which": true, "type": true, "whereis": true, "du": true,
	"df": true, "ps": true, "jq": true, "cut": true, "tr": true, "basename": true, "dirname": true,
	"realpath": true, "readlink": true, "test": true, "[": true, "true": true, "false": true, ":": true, "sleep": true,
	"date": true, "id": true, "whoami": true, "uname": true, "hostname": true, "nl": true, "od": true, "hexdump": true,
	"md5sum": true, "sha1sum": true, "sha256sum": true, "sha512sum": true, "cksum": true, "column": true, "paste": true,
	"fold": true, "rev": true, "tac": true, "strings": true, "printenv": true, "seq": true, "expr": true, "nproc": true,
	"uptime": true, "free": true, "exit": true, "return": true, "set": true, "shift": true, "read": true, "wait": true,
	"jobs": true, "kill": true, "unset": true, "shopt": true, "local": true, "declare": true, "readonly": true,
	"export": true, "getopts": true, "help": true, "env": true, "lsof": true, "bat": true,
	"tokei": true, "cloc": true, "locale": true, "tput": true, "clear": true, "break": true,
	"continue": true, "sum": true, "zcat": true, "zgrep": true, "xzcat": true, "bzcat": true, "look": true}

// dirFlag lists a command's options whose value is the directory it works
// in or installs into (npm --prefix, pip --target, cargo --target-dir):
// short option letters and long names (without dashes).
type dirFlag struct{ short, long string }

var dirFlags = map[string]dirFlag{
	"npm":      {"C", "prefix cache"},
	"pnpm":     {"C", "dir prefix modules-dir store-dir"},
	"yarn":     {"", "cwd modules-folder cache-folder"},
	"pip":      {"td", "target prefix root src dest cache-dir"},
	"pip3":     {"td", "target prefix root src dest cache-dir"},
	"uv":       {"", "target prefix directory project cache-dir"},
	"cargo":    {"", "target-dir out-dir artifact-dir root manifest-path"},
	"gem":      {"in", "install-dir bindir"},
	"composer": {"d", "working-dir"},
	"bundle":   {"", "path"},
	"mvn":      {"f", "file"},
	"gradle":   {"p", "project-dir project-cache-dir"},
	"cmake":    {"BS", ""},
	"docker":   {"o", "output"},
}

// unmodelled records what a command whose effects loopx does not model
// names: every path-like argument and option value ("--x=v", "-xv") is a
// mentioned path (a bare word only if such a file exists), so a protected
// one denies; dirFlags values are write targets.
func (r *reader) unmodelled(name string, args []word, here dirs) {
	df := dirFlags[name]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--":
			for _, w := range args[i+1:] {
				r.mention(w, here)
			}
			return
		case strings.HasPrefix(a.s, "--"):
			n, val, hasVal := strings.Cut(a.s[2:], "=")
			v := word{s: val, dyn: a.dyn, pos: a.pos, end: a.end}
			if listed(df.long, n) {
				if !hasVal && i+1 < len(args) {
					i++
					v, hasVal = args[i], true
				}
				if hasVal {
					r.writeDir(v, here, name+" --"+n+" directory")
				}
			} else if hasVal {
				r.mention(v, here)
			}
		case len(a.s) > 1 && a.s[0] == '-':
			v := word{s: a.s[2:], dyn: a.dyn, pos: a.pos, end: a.end}
			if strings.IndexByte(df.short, a.s[1]) >= 0 {
				if v.s == "" && i+1 < len(args) {
					i++
					v = args[i]
				}
				r.writeDir(v, here, name+" "+a.s[:2]+" directory")
			} else {
				r.mention(v, here)
			}
		default:
			r.mention(a, here)
		}
	}
}

// mention adds the path a word names from the directories here: a
// path-like word (containing "/", a dot-file name, ~) to mentioned, a bare
// word with a letter to names (a path only if such a file exists).
func (r *reader) mention(w word, here dirs) {
	s := w.s
	if w.dyn != 0 || strings.Trim(s, "./") == "" || len(r.cl.Mentioned)+len(r.cl.Names) >= maxMentions {
		return
	}
	bare := !strings.Contains(s, "/") && !isDotName(s) && !strings.HasPrefix(s, "~")
	if bare && !strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return
	}
	add := func(p string) {
		if bare {
			r.cl.Names = appendNew(r.cl.Names, p)
		} else {
			r.cl.Mentioned = appendNew(r.cl.Mentioned, p)
		}
	}
	if path.IsAbs(s) || strings.HasPrefix(s, "~") {
		add(s)
		return
	}
	for _, d := range here {
		switch d {
		case unknownDir, "":
			add(s)
		default:
			add(path.Join(d, s))
		}
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

// writeDir records a directory a command works in or installs into as a
// write target; "." (where it runs anyway) is none.
func (r *reader) writeDir(w word, here dirs, what string) {
	if w.dyn == 0 && path.Clean(w.s) == "." {
		return
	}
	r.writeTarget(w, here, what)
}

// preservesLinks reports whether cp's --preserve list keeps symlinks as
// symlinks (links or all).
func preservesLinks(opts []opt) bool {
	for _, v := range optVals(opts, "--preserve") {
		for _, f := range strings.Split(v.s, ",") {
			if f == "links" || f == "all" {
				return true
			}
		}
	}
	return false
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
