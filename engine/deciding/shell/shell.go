// Package shell reads a shell command line the way a permission decision
// needs it. The line is parsed by mvdan.cc/sh (bash syntax: quote removal,
// here-documents, compound commands, process substitution) and its syntax
// tree is walked into a Line:
//
//   - Argvs: every simple command, wherever it sits (pipelines, lists,
//     subshells, { }, if/for/while/case bodies, function bodies, $(…), <(…),
//     `sh -c`, `eval`, `trap`, find -exec, xargs, …), as its normalised argv;
//   - Writes: the files the line writes (redirections and the operands of
//     the file mutators the reader knows), relative to the directory each
//     command runs in (cd/pushd are followed through &&, ||, ; and
//     subshells);
//   - Opaque: one reason per thing loopx cannot read (what runs or what is
//     written depends on something loopx does not see).
//
// It is not a shell: it never expands variables or runs anything. What it
// cannot read it reports, so that the policy never allows it. The package
// is pure: it knows nothing of the engine, the store or the policies.
package shell

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// This file holds the reader's entry point and its walk of the syntax tree:
// statements, lists, compound commands, redirections, assignments and the
// scripts read again inside a line (sh -c, eval, trap, …).

// maxCommandLine is the parse cap: a longer command line is opaque.
const maxCommandLine = 64 << 10

// maxShellDepth bounds scripts read again inside scripts (sh -c, eval,
// trap, watch, …): deeper is malformed.
const maxShellDepth = 8

// maxNesting bounds compound commands and substitutions nested in one
// script (( ( … ) ), $( $( … ) ), { { … } }): deeper is malformed.
const maxNesting = 64

// maxBraceWords bounds what one word's brace expansion may produce.
const maxBraceWords = 64

// Line is what a command line tells a permission decision
// (input.permission's commands, argvs, actions, opaque and the paths a
// command writes or mentions). Every list is nil when empty.
type Line struct {
	// Argvs are the normalised simple commands (argv[0] reduced to its base
	// name; wrappers such as env, sudo, timeout and git's global options
	// dropped); Commands the same joined by spaces.
	Argvs    [][]string
	Commands []string
	// Actions are the loopx actions the commands map to ("git.push",
	// "git.push.force", "git.merge", "git.commit", "git.tag",
	// "npm.publish", "loopx.gate.answer"), each once; ArgvActions those of
	// each simple command (parallel to Argvs, nil for none).
	Actions     []string
	ArgvActions [][]string
	// Writes are the files the commands write: redirection targets and the
	// operands of known file mutators, joined to the directory the command
	// runs in when a cd/pushd changed it (kept as written otherwise:
	// relative to the starting directory, absolute, or "~/…").
	Writes []string
	// Opaque holds one reason per thing the reader cannot read; empty when
	// the whole line is readable.
	Opaque []string
	// Mentioned are the path-like tokens of an opaque line (containing "/"
	// or a dot-file name); Names its other words, which name a file only if
	// such a file exists (the caller checks).
	Mentioned []string
	Names     []string
	// Parsed is false when the line could not be parsed at all (malformed,
	// over the parse cap, nested too deeply); Opaque then says why.
	Parsed bool
}

// stdinKind is where a command's standard input comes from.
type stdinKind uint8

const (
	stdinNone   stdinKind = iota // inherited: nothing loopx sees
	stdinPipe                    // a pipe or a process substitution
	stdinInline                  // a here-document or here-string
	stdinFile                    // a file (< file)
)

// Options are what the reader may know beyond the line itself.
type Options struct {
	// Git is git's configuration (the project's and the user's, read by
	// the caller): `git <alias>` is read as what the alias runs. nil knows
	// no alias: a git subcommand that is not git's own is opaque.
	Git *GitConfig
}

// reader walks one command line's syntax trees.
type reader struct {
	cl    *Line
	opts  Options
	src   string // the script being walked (word offsets index it)
	depth int    // scripts read inside scripts
	nest  int    // compound commands and substitutions nested
	seen  dirs   // every directory a command may run in
	// knownDirs: $PWD and $HOME at the start of a word are resolved (the
	// line does not set them).
	knownDirs bool
}

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// Read reads line into simple commands, actions, written files and opaque
// reasons, knowing no git configuration (ReadWith). It never fails: what
// it cannot read (a malformed line, one over 64 KiB, scripts nested too
// deeply) is an opaque reason, with Parsed false when nothing of the line
// could be read.
func Read(line string) Line { return ReadWith(line, Options{}) }

// ReadWith is Read knowing what o says (git's aliases).
func ReadWith(line string, o Options) Line {
	cl := Line{Parsed: true}
	r := &reader{cl: &cl, seen: startDirs, opts: o}
	r.knownDirs = !(strings.Contains(line, "PWD") || strings.Contains(line, "HOME")) || !dirVarsSet().MatchString(line)
	if len(line) > maxCommandLine {
		cl.Parsed = false
		cl.Opaque = append(cl.Opaque, fmt.Sprintf("command line of %d bytes is over the %d KiB parse cap", len(line), maxCommandLine>>10))
		r.mentions(line[:maxCommandLine])
		return cl
	}
	if err := r.script(line, startDirs, stdinNone); err != nil {
		cl.Parsed = false
		cl.Opaque = append(cl.Opaque, err.Error())
	}
	if len(cl.Opaque) > 0 {
		r.mentions(line)
	}
	return cl
}

// script parses src and walks it from the directories in; an error means
// src could not be parsed (or is nested too deeply) and nothing of it was
// walked.
func (r *reader) script(src string, in dirs, stdin stdinKind) error {
	_, _, err := r.scriptDirs(src, in, stdin)
	return err
}

// scriptDirs is script returning where the script ends when its last
// command succeeds and when it fails (eval's cd changes the caller's
// directory).
func (r *reader) scriptDirs(src string, in dirs, stdin stdinKind) (ok, fail dirs, err error) {
	if r.depth >= maxShellDepth {
		return in, in, fmt.Errorf("scripts nested deeper than %d (sh -c, eval, …)", maxShellDepth)
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	if err != nil {
		return in, in, fmt.Errorf("malformed shell: %v", err)
	}
	saved, savedNest := r.src, r.nest
	r.src, r.nest = src, 0
	r.depth++
	ok, fail = r.stmts(f.Stmts, in, stdin)
	r.depth--
	r.src, r.nest = saved, savedNest
	return ok, fail, nil
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

// opaquef records a reason loopx cannot read the line.
func (r *reader) opaquef(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, m := range r.cl.Opaque {
		if m == msg {
			return
		}
	}
	r.cl.Opaque = append(r.cl.Opaque, msg)
}

// malformed records that part of the line cannot be parsed.
func (r *reader) malformed(err error) {
	r.cl.Parsed = false
	r.opaquef("%s", err.Error())
}

// snippet is w as written, shortened for a reason.
func (r *reader) snippet(w word) string {
	s := w.s
	if w.end > w.pos && int(w.end) <= len(r.src) {
		s = r.src[w.pos:w.end]
	}
	if len(s) > 40 {
		s = s[:37] + "…"
	}
	return s
}

// stmts walks a list run one after the other; it returns the directories
// the list may end in when its last command succeeds and when it fails.
func (r *reader) stmts(ss []*syntax.Stmt, in dirs, stdin stdinKind) (ok, fail dirs) {
	ok, fail = in, in
	cur := in
	for _, s := range ss {
		ok, fail = r.stmt(s, cur, stdin)
		cur = ok.union(fail)
	}
	return ok, fail
}

// nested runs f one compound level deeper; false when too deep.
func (r *reader) nested(f func()) bool {
	if r.nest >= maxNesting {
		r.malformed(fmt.Errorf("commands nested deeper than %d", maxNesting))
		return false
	}
	r.nest++
	f()
	r.nest--
	return true
}

// stmt walks one statement with its redirections.
func (r *reader) stmt(s *syntax.Stmt, in dirs, stdin stdinKind) (ok, fail dirs) {
	for _, rd := range s.Redirs {
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			stdin = stdinInline
		case syntax.RdrIn:
			stdin = stdinFile
			for _, p := range rd.Word.Parts {
				if _, isProc := p.(*syntax.ProcSubst); isProc {
					stdin = stdinPipe
				}
			}
		}
	}
	ok, fail = in, in
	if s.Cmd != nil {
		ok, fail = r.command(s.Cmd, in, stdin, s.Redirs)
	}
	r.redirects(s.Redirs, in)
	if s.Negated {
		ok, fail = fail, ok
	}
	if s.Background || s.Coprocess || s.Disown {
		return in, in
	}
	return ok, fail
}

// redirects records the files the redirections write and walks the
// substitutions in their words and here-document bodies.
func (r *reader) redirects(rds []*syntax.Redirect, in dirs) {
	for _, rd := range rds {
		if rd.Hdoc != nil {
			r.inner(rd.Hdoc, in)
		}
		if rd.Word == nil {
			continue
		}
		w := r.word(rd.Word, in, false)
		switch rd.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
			r.writeTarget(w, in, "redirection target")
		case syntax.DplOut:
			if w.dyn != 0 {
				r.opaquef("redirection target built from %s", r.snippet(w))
			} else if w.s != "-" && !isDigits(w.s) { // >&file is &>file
				r.writeTarget(w, in, "redirection target")
			}
		}
	}
}

// writeTarget records that w is written from the directories in: a word
// built from expansions, or a relative one under an unknown directory, is
// opaque instead.
func (r *reader) writeTarget(w word, in dirs, what string) {
	if w.dyn != 0 {
		r.opaquef("%s built from %s", what, r.snippet(w))
		return
	}
	if w.s == "" {
		return
	}
	if path.IsAbs(w.s) || w.s == "~" || strings.HasPrefix(w.s, "~/") {
		r.cl.Writes = appendNew(r.cl.Writes, w.s)
		return
	}
	for _, d := range in {
		switch d {
		case unknownDir:
			r.opaquef("writes %s relative to a directory loopx cannot tell (cd -, cd $X, popd)", w.s)
			r.cl.Mentioned = appendNew(r.cl.Mentioned, w.s)
		case "":
			r.cl.Writes = appendNew(r.cl.Writes, w.s)
		default:
			r.cl.Writes = appendNew(r.cl.Writes, path.Join(d, w.s))
		}
	}
}

// writer returns write, which records w as a file the command name writes
// from the directories here ("<name> target" in an opaque reason), and
// writeAll, which records each of ws.
func (r *reader) writer(name string, here dirs) (write func(w word), writeAll func(ws []word)) {
	write = func(w word) { r.writeTarget(w, here, name+" target") }
	writeAll = func(ws []word) {
		for _, w := range ws {
			write(w)
		}
	}
	return write, writeAll
}

// command walks one command of a statement.
func (r *reader) command(c syntax.Command, in dirs, stdin stdinKind, rds []*syntax.Redirect) (ok, fail dirs) {
	ok, fail = in, in
	switch c := c.(type) {
	case *syntax.CallExpr:
		return r.call(c, in, stdin, rds)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt:
			lo, lf := r.stmt(c.X, in, stdin)
			ro, rf := r.stmt(c.Y, lo, stdin)
			return ro, lf.union(rf)
		case syntax.OrStmt:
			lo, lf := r.stmt(c.X, in, stdin)
			ro, rf := r.stmt(c.Y, lf, stdin)
			return lo.union(ro), rf
		default: // | and |&: each side in its own subshell
			r.stmt(c.X, in, stdin)
			r.stmt(c.Y, in, stdinPipe)
		}
	case *syntax.Subshell:
		r.nested(func() { r.stmts(c.Stmts, in, stdin) })
	case *syntax.Block:
		r.nested(func() { ok, fail = r.stmts(c.Stmts, in, stdin) })
	case *syntax.IfClause:
		r.nested(func() { ok = r.ifClause(c, in, stdin); fail = ok })
	case *syntax.WhileClause:
		r.nested(func() {
			cur := in
			for range 2 { // a second pass from where the first ended
				co, cf := r.stmts(c.Cond, cur, stdin)
				bo, bf := r.stmts(c.Do, co.union(cf), stdin)
				next := cur.union(co).union(cf).union(bo).union(bf)
				if len(next) == len(cur) {
					break
				}
				cur = next
			}
			ok, fail = cur, cur
		})
	case *syntax.ForClause:
		r.nested(func() {
			switch l := c.Loop.(type) {
			case *syntax.WordIter:
				for _, w := range l.Items {
					r.fields(nil, w, in)
				}
			default:
				r.inner(l, in)
			}
			cur := in
			for range 2 {
				bo, bf := r.stmts(c.Do, cur, stdin)
				next := cur.union(bo).union(bf)
				if len(next) == len(cur) {
					break
				}
				cur = next
			}
			ok, fail = cur, cur
		})
	case *syntax.CaseClause:
		r.nested(func() {
			r.word(c.Word, in, false)
			out := in
			for _, it := range c.Items {
				for _, p := range it.Patterns {
					r.inner(p, in)
				}
				io, iff := r.stmts(it.Stmts, in, stdin)
				out = out.union(io).union(iff)
			}
			ok, fail = out, out
		})
	case *syntax.FuncDecl:
		// The body runs when the function is called; read it where it is
		// defined (a call names only the function).
		r.nested(func() { r.stmt(c.Body, in, stdinNone) })
	case *syntax.TimeClause:
		if c.Stmt != nil {
			return r.stmt(c.Stmt, in, stdin)
		}
	case *syntax.CoprocClause:
		r.stmt(c.Stmt, in, stdinPipe)
	case *syntax.DeclClause:
		argv := []string{c.Variant.Value}
		for _, a := range c.Args {
			r.assign(a, in)
			argv = append(argv, r.assignText(a))
		}
		r.emit(argv)
	case *syntax.TestDecl:
		r.nested(func() { r.stmt(c.Body, in, stdinNone) })
	default: // (( … )), [[ … ]], let: only their substitutions run
		r.inner(c, in)
	}
	return ok, fail
}

func (r *reader) ifClause(c *syntax.IfClause, in dirs, stdin stdinKind) dirs {
	co, cf := r.stmts(c.Cond, in, stdin)
	to, tf := r.stmts(c.Then, co, stdin)
	out := in.union(to).union(tf)
	switch {
	case c.Else == nil:
		out = out.union(cf)
	case len(c.Else.Cond) == 0: // else
		eo, ef := r.stmts(c.Else.Then, cf, stdin)
		out = out.union(eo).union(ef)
	default: // elif
		out = out.union(r.ifClause(c.Else, cf, stdin))
	}
	return out
}

// inner walks the command and process substitutions anywhere inside n
// (arithmetic, [[ ]], patterns, parameter expansions, here-documents).
func (r *reader) inner(n syntax.Node, in dirs) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			r.nested(func() { r.stmts(n.Stmts, in, stdinNone) })
			return false
		case *syntax.ProcSubst:
			st := stdinNone
			if n.Op == syntax.CmdOut {
				st = stdinPipe
			}
			r.nested(func() { r.stmts(n.Stmts, in, st) })
			return false
		}
		return true
	})
}

// assign checks one assignment (X=v cmd, X=v alone, export X=v, …): names
// that make programs run other code are opaque.
func (r *reader) assign(a *syntax.Assign, in dirs) {
	if a.Value != nil {
		r.word(a.Value, in, false)
	}
	if a.Array != nil {
		r.inner(a.Array, in)
	}
	if a.Index != nil {
		r.inner(a.Index, in)
	}
	if a.Name != nil && !a.Naked {
		r.envName(a.Name.Value)
	}
}

// assignText is an assignment as an argv word: NAME=value, a naked name
// or option, NAME=(…) for an array.
func (r *reader) assignText(a *syntax.Assign) string {
	var v string
	switch {
	case a.Array != nil:
		v = r.source(a.Array)
	case a.Value != nil:
		v = r.word(a.Value, nil, true).s
	}
	if a.Name == nil {
		return v
	}
	if a.Naked {
		return a.Name.Value
	}
	return a.Name.Value + "=" + v
}

// call walks a simple command.
func (r *reader) call(c *syntax.CallExpr, in dirs, stdin stdinKind, rds []*syntax.Redirect) (ok, fail dirs) {
	for _, a := range c.Assigns {
		r.assign(a, in)
	}
	ws := make([]word, 0, len(c.Args))
	for _, w := range c.Args {
		ws = r.fields(ws, w, in)
	}
	if len(ws) == 0 {
		return in, in
	}
	return r.simple(ws, in, stdin, rds)
}

// emit records one normalised simple command and the action it maps to
// outside git (git's are recorded by reader.git).
func (r *reader) emit(argv []string) {
	r.cl.Argvs = append(r.cl.Argvs, argv)
	r.cl.Commands = append(r.cl.Commands, strings.Join(argv, " "))
	r.cl.ArgvActions = append(r.cl.ArgvActions, nil)
	if a := commandAction(argv); a != "" {
		r.act(len(r.cl.Argvs)-1, a)
	}
}

// act records action a of the simple command emitted at index at.
func (r *reader) act(at int, a string) {
	r.cl.ArgvActions[at] = appendNew(r.cl.ArgvActions[at], a)
	r.cl.Actions = appendNew(r.cl.Actions, a)
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func appendNew(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
