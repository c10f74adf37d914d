package shell

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// This file models the file utilities: what rm, mv, cp, ln, chmod, dd,
// sed -i, awk, patch, the editors, find and the like write, and the
// options of these tools (and of searchers and viewers: rg --pre, fd -x,
// less -o) that run commands or write files.

// fileTools records what a file utility writes or runs; false when name
// is none.
func (r *reader) fileTools(name string, args []word, here dirs, stdin stdinKind) bool {
	write, writeAll := r.writer(name, here)
	switch name {
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
	case "rename", "prename", "file-rename":
		r.opaquef("%s runs a perl expression over file names", name)
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
		return false
	}
	return true
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
var awkRuns = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bsystem\s*\(|(^|[^|])\|($|[^|])|\|&|\b(print|printf)\b[^;{}\n]*>`)
})

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
		} else if awkRuns().MatchString(p.s) {
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
