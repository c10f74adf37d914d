package shell

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// This file models the programs that run code: shells (sh -c is read
// again; a script from a pipe or here-document is opaque), interpreters
// with inline code or code on their standard input (python -c, node -e,
// perl -e, …), debuggers (gdb, lldb), and tools with a command language
// (deno eval, sqlite3 .shell).

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

var versionedPython = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(python|pypy)[0-9.]*$`) })

// interp returns the interpreter a program name is, if any.
func interp(name string) (interpreter, bool) {
	if it, ok := interpreters[name]; ok {
		return it, true
	}
	if versionedPython().MatchString(name) {
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

// lldb marks debugger commands given inline (-o CMD, -oCMD, -s FILE,
// --one-line…, --source…) opaque: lldb's platform shell runs programs.
func (r *reader) lldb(args []word) {
	for _, a := range args { // -o CMD, -oCMD, --one-line[-…]=CMD, -s FILE, --source…
		if strings.HasPrefix(a.s, "--one-line") || strings.HasPrefix(a.s, "--source") ||
			(len(a.s) > 1 && a.s[0] == '-' && a.s[1] != '-' && strings.IndexByte("oOkKsS", a.s[1]) >= 0) {
			r.opaquef("lldb %s runs debugger commands (platform shell runs programs)", r.snippet(a))
		}
	}
}

// codeTools marks the command languages of deno and sqlite3 opaque and
// records the database sqlite3 writes; false when name is neither.
func (r *reader) codeTools(name string, args []word, here dirs, stdin stdinKind) bool {
	write, _ := r.writer(name, here)
	switch name {
	case "deno":
		if len(args) > 0 && args[0].s == "eval" {
			r.opaquef("inline deno code (eval)")
		}
		if len(args) > 1 && args[0].s == "run" && args[len(args)-1].s == "-" && stdinFrom(stdin) != "" {
			r.opaquef("%s an interpreter (deno)", stdinFrom(stdin))
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
	default:
		return false
	}
	return true
}
