package shell

import (
	"path"
	"strings"
)

// This file models what a line names when loopx cannot tell what it
// does: the path-like tokens of an opaque line, and the arguments of a
// command the reader has no rules for (read-only commands excepted). The
// policy denies such a line when it names a protected path.

// maxMentions bounds the paths an opaque line adds to the request.
const maxMentions = 256

// mentions adds the path-like tokens of an opaque line: of its text and of
// every argv word (quotes removed), joined to every directory a command
// of the line may run in. Command names, options, and the bare root
// (".", "..", "/": too common in code to name anything) are left out.
func (r *reader) mentions(line string) {
	seen := map[string]bool{}
	commandWords := map[string]bool{}
	for _, argv := range r.cl.Argvs {
		commandWords[argv[0]] = true
	}
	add := func(tok string) {
		tok = strings.TrimLeft(tok, "-")
		if tok == "" || seen[tok] || len(r.cl.Mentioned)+len(r.cl.Names) >= maxMentions {
			return
		}
		seen[tok] = true
		if strings.Trim(tok, "./") == "" {
			return
		}
		bare := !strings.Contains(tok, "/") && !isDotName(tok)
		if bare && (commandWords[tok] || !strings.ContainsAny(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")) {
			return
		}
		var targets []string
		if path.IsAbs(tok) || strings.HasPrefix(tok, "~") {
			targets = []string{tok}
		} else {
			for _, d := range r.seen {
				switch d {
				case unknownDir:
				case "":
					targets = append(targets, tok)
				default:
					targets = append(targets, path.Join(d, tok))
				}
			}
		}
		for _, t := range targets {
			if bare {
				r.cl.Names = appendNew(r.cl.Names, t)
			} else {
				r.cl.Mentioned = appendNew(r.cl.Mentioned, t)
			}
		}
	}
	tokens(line, add)
	for _, argv := range r.cl.Argvs {
		for _, a := range argv[1:] {
			tokens(a, add)
		}
	}
}

// tokens calls f with each run of characters that may form a path.
func tokens(s string, f func(string)) {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isPathByte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f(s[start:i])
			start = -1
		}
	}
}

func isPathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-/~+@%*", c) >= 0 || c >= 0x80
}

// isDotName reports a dot-file name such as ".loopx" or ".env".
func isDotName(s string) bool {
	return len(s) > 1 && s[0] == '.' && s[1] != '.' && s[1] != '/'
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
