package shell

import (
	"os/user"
	"path"
	"regexp"
	"strings"
	"sync"

	shexpand "mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// This file reads one shell word the way the shell would see it after
// brace expansion and quote removal, without expanding anything: which
// expansions built it, whether it is a glob, and the $PWD, $HOME and ~user
// prefixes the reader resolves.

// word is one shell word after quote removal: substitutions are kept as
// written ($X, ${X}), a command substitution as "$()".
type word struct {
	s    string
	dyn  dynKind
	glob bool // an unquoted *, ? or [
	// optLike: an expansion starts the word or stands unquoted in it (word
	// splitting), so it may yield an option (go test $(cat pkgs)).
	optLike  bool
	pos, end uint // offsets in the reader's current source
}

// dynKind says which expansions built a word.
type dynKind uint8

const (
	dynParam dynKind = 1 << iota // $X, ${X…}, ~user
	dynSubst                     // $(…), `…`
	dynAnsiC                     // $'…'
	dynProc                      // <(…), >(…)
	dynArith                     // $((…))
)

// fields appends to ws the words one argument word becomes after brace
// expansion (usually one).
func (r *reader) fields(ws []word, w *syntax.Word, in dirs) []word {
	braces := false
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsRune(l.Value, '{') {
			braces = true
		}
	}
	if braces && syntax.SplitBraces(w) {
		n := 0
		for bw, err := range shexpand.BracesSeq(nil, w) {
			if err != nil || n == maxBraceWords {
				r.opaquef("brace expansion of %s makes over %d words", r.snippet(word{pos: w.Pos().Offset(), end: w.End().Offset()}), maxBraceWords)
				break
			}
			ws = append(ws, r.word(bw, in, n > 0))
			n++
		}
		return ws
	}
	return append(ws, r.word(w, in, false))
}

// word reads w with quotes removed, walking the command and process
// substitutions in it (once: again is true for a brace expansion's second
// and later words, whose substitutions the first one walked).
func (r *reader) word(w *syntax.Word, in dirs, again bool) word {
	out := word{pos: w.Pos().Offset(), end: w.End().Offset()}
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(l.Value, "\\*?[~") {
			out.s = l.Value // the common case, without a copy
			return out
		}
	}
	var b strings.Builder
	r.parts(&b, &out, w.Parts, in, false, again, true)
	out.s = b.String()
	return out
}

// userHome splits a bare "~name/rest" word into name's home directory
// (os/user, the password database: absolute) and "/rest"; ok is false for
// "~" and "~/…" (the caller's home, read elsewhere), "~+", "~-", and a
// name that is no user (then the word stays unknown: opaque).
func userHome(v string) (home, rest string, ok bool) {
	name, rest, _ := strings.Cut(v[1:], "/")
	if rest != "" || strings.HasSuffix(v, "/") {
		rest = "/" + rest
	}
	if name == "" || name == "+" || name == "-" || strings.ContainsAny(name, "$`\\'\"{}*?[") {
		return "", "", false
	}
	u, err := user.Lookup(name)
	if err != nil || !path.IsAbs(u.HomeDir) {
		return "", "", false
	}
	return u.HomeDir, rest, true
}

// parts writes parts into b; endOK says what follows them in the word is
// nothing or starts with "/" (where $PWD and $HOME may be resolved).
func (r *reader) parts(b *strings.Builder, out *word, parts []syntax.WordPart, in dirs, quoted, again, endOK bool) {
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && !quoted && b.Len() == 0 && strings.HasPrefix(v, "~") {
				if home, rest, ok := userHome(v); ok {
					v = home + rest // ~user/x is that user's home, as the shell expands it
				} else if rest := v[1:]; (rest != "" && rest[0] != '/') || (rest == "" && len(parts) > 1) {
					out.dyn |= dynParam // ~+, ~-, ~$X, ~unknown
				}
			}
			if quoted {
				unescapeQuoted(b, v)
			} else {
				out.glob = unescapeBare(b, v) || out.glob
			}
		case *syntax.SglQuoted:
			if p.Dollar { // $'…' decodes exactly (bash stops at a NUL)
				s, _, err := shexpand.Format(nil, p.Value, nil)
				if err != nil {
					out.dyn |= dynAnsiC
				}
				s, _, _ = strings.Cut(s, "\x00")
				b.WriteString(s)
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			r.parts(b, out, p.Parts, in, true, again, endsPath(parts, i, endOK))
		case *syntax.CmdSubst:
			out.optLike = out.optLike || !quoted || b.Len() == 0
			out.dyn |= dynSubst
			if !again {
				r.nested(func() { r.stmts(p.Stmts, in, stdinNone) })
			}
			b.WriteString("$()")
		case *syntax.ProcSubst:
			out.dyn |= dynProc
			if !again {
				st := stdinNone
				if p.Op == syntax.CmdOut {
					st = stdinPipe
				}
				r.nested(func() { r.stmts(p.Stmts, in, st) })
			}
			b.WriteString(p.Op.String())
			b.WriteString(")")
		case *syntax.ParamExp:
			if b.Len() == 0 && out.dyn == 0 && r.knownDirs && endsPath(parts, i, endOK) {
				if d := knownDir(p); d != "" { // $PWD/x, ${HOME}/x, "$HOME"
					b.WriteString(d)
					continue
				}
			}
			out.optLike = out.optLike || !quoted || b.Len() == 0
			out.dyn |= dynParam
			if !again {
				r.inner(p, in)
			}
			b.WriteString(r.source(p))
		case *syntax.ArithmExp:
			out.optLike = out.optLike || !quoted || b.Len() == 0
			out.dyn |= dynArith
			if !again {
				r.inner(p, in)
			}
			b.WriteString(r.source(p))
		case *syntax.ExtGlob:
			out.glob = true
			b.WriteString(r.source(p))
		default:
			b.WriteString(r.source(p))
		}
	}
}

// endsPath reports whether what follows parts[i] in its word is nothing
// (endOK says so for the end of parts) or starts with "/".
func endsPath(parts []syntax.WordPart, i int, endOK bool) bool {
	if i+1 == len(parts) {
		return endOK
	}
	switch p := parts[i+1].(type) {
	case *syntax.Lit:
		return strings.HasPrefix(p.Value, "/")
	case *syntax.SglQuoted:
		return !p.Dollar && strings.HasPrefix(p.Value, "/")
	case *syntax.DblQuoted:
		if len(p.Parts) == 0 {
			return endsPath(parts, i+1, endOK)
		}
		l, ok := p.Parts[0].(*syntax.Lit)
		return ok && strings.HasPrefix(l.Value, "/")
	}
	return false
}

// knownDir is what a plain $PWD or $HOME (${PWD}, ${HOME}) stands for in a
// path: "." (the directory the command runs in; cd is followed) or "~"
// (the home directory, os.UserHomeDir); "" for any other expansion.
func knownDir(p *syntax.ParamExp) string {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Names != 0 || p.Exp != nil {
		return ""
	}
	switch p.Param.Value {
	case "PWD":
		return "."
	case "HOME":
		return "~"
	}
	return ""
}

// dirVarsSet matches a line that may set PWD or HOME itself (PWD=…, read
// HOME, ${HOME:=…}, unset PWD): there the two are not resolved.
var dirVarsSet = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\w$])(?:PWD|HOME)(?:[^\w}]|$)|\$\{(?:PWD|HOME)[^}]`)
})

// source is n as written in the current script.
func (r *reader) source(n syntax.Node) string {
	s, e := n.Pos().Offset(), n.End().Offset()
	if s < e && int(e) <= len(r.src) {
		return r.src[s:e]
	}
	return ""
}

// unescapeBare writes an unquoted literal with its backslashes removed; it
// reports an unescaped glob character.
func unescapeBare(b *strings.Builder, v string) (glob bool) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v):
			i++
			b.WriteByte(v[i])
		case c == '*' || c == '?' || (c == '[' && strings.IndexByte(v[i+1:], ']') >= 0):
			glob = true
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return glob
}

// unescapeQuoted writes a literal inside "…": a backslash escapes only
// $ ` " \ there.
func unescapeQuoted(b *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\", v[i+1]) >= 0 {
			i++
		}
		b.WriteByte(v[i])
	}
}
