package engine

import (
	"path"
	"regexp"
	"strings"
)

// This file reads a shell command line the way a permission decision needs
// it: as simple commands (argv lists, wrappers such as env/sudo/xargs and
// leading NAME=value assignments removed, argv[0] reduced to its base name),
// with `sh -c`, `eval`, $(…) and backquotes read recursively, and the files
// the line writes through output redirections. It is not a shell: it never
// expands variables, and it reports the lines it cannot read (unbalanced
// quotes, too deep nesting) so that the policy can ask a human.

// simpleCmd is one simple command of a command line.
type simpleCmd struct {
	argv []string
	// writes are the targets of output redirections (>, >>, &>, >|).
	writes []string
}

// maxShellDepth bounds sh -c / eval / $(…) nesting.
const maxShellDepth = 8

// parseShell splits line into simple commands; ok is false when the line is
// malformed (an unclosed quote or substitution) or nested too deeply.
func parseShell(line string) (cmds []simpleCmd, ok bool) {
	p := &shellParser{}
	p.parse(line, 0)
	return p.cmds, p.ok()
}

type shellParser struct {
	cmds []simpleCmd
	bad  bool
}

func (p *shellParser) ok() bool { return !p.bad }

// parse reads one command line at nesting depth.
func (p *shellParser) parse(s string, depth int) {
	if depth > maxShellDepth {
		p.bad = true
		return
	}
	var (
		cur      simpleCmd
		word     strings.Builder
		inWord   bool
		redirect string // "out", "in" or "heredoc": the next word is its target
		heredocs []heredoc
	)
	endWord := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		switch redirect {
		case "out":
			cur.writes = append(cur.writes, w)
		case "heredoc":
			heredocs = append(heredocs, heredoc{delim: strings.Trim(w, `'"`)})
		case "in", "dup":
		default:
			cur.argv = append(cur.argv, w)
		}
		redirect = ""
	}
	endCmd := func() {
		endWord()
		if len(cur.argv) > 0 || len(cur.writes) > 0 {
			p.cmds = append(p.cmds, cur)
		}
		cur, redirect = simpleCmd{}, ""
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\\':
			if i+1 < len(rs) {
				i++
				if rs[i] != '\n' { // backslash-newline continues the line
					word.WriteRune(rs[i])
					inWord = true
				}
			}
		case c == '\'':
			j := indexRune(rs, i+1, '\'')
			if j < 0 {
				p.bad = true
				return
			}
			word.WriteString(string(rs[i+1 : j]))
			inWord, i = true, j
		case c == '"':
			j, ok := p.doubleQuoted(rs, i+1, &word, depth)
			if !ok {
				p.bad = true
				return
			}
			inWord, i = true, j
		case c == '`':
			j := indexRune(rs, i+1, '`')
			if j < 0 {
				p.bad = true
				return
			}
			p.parse(string(rs[i+1:j]), depth+1)
			word.WriteString("$()")
			inWord, i = true, j
		case c == '$' && i+1 < len(rs) && rs[i+1] == '(':
			j := closingParen(rs, i+2)
			if j < 0 {
				p.bad = true
				return
			}
			p.parse(string(rs[i+2:j]), depth+1)
			word.WriteString("$()")
			inWord, i = true, j
		case c == '#' && !inWord:
			for i+1 < len(rs) && rs[i+1] != '\n' {
				i++
			}
		case c == ' ' || c == '\t':
			endWord()
		case c == '\n':
			endCmd()
			i = skipHeredocs(rs, i+1, heredocs) - 1
			heredocs = nil
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			if c == '&' && i+1 < len(rs) && rs[i+1] == '>' { // &> and &>> redirect both streams
				endWord()
				i++
				if i+1 < len(rs) && rs[i+1] == '>' {
					i++
				}
				redirect = "out"
				continue
			}
			endCmd()
		case c == '>' || c == '<':
			if inWord && isDigits(word.String()) { // 2>file: the digits name a descriptor
				word.Reset()
				inWord = false
			}
			endWord()
			kind := "out"
			if c == '<' {
				kind = "in"
			}
			for i+1 < len(rs) && (rs[i+1] == '>' || rs[i+1] == '<' || rs[i+1] == '|' || rs[i+1] == '&' || rs[i+1] == '-') {
				i++
				switch rs[i] {
				case '<':
					kind = "heredoc" // << and <<-; <<< is a here-string
					if i+1 < len(rs) && rs[i+1] == '<' {
						i++
						kind = "in"
					}
				case '&':
					kind = "dup" // 2>&1, <&3
				}
			}
			redirect = kind
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	endCmd()
}

type heredoc struct{ delim string }

// skipHeredocs skips the bodies of pending here-documents starting at i and
// returns the index after the last body.
func skipHeredocs(rs []rune, i int, docs []heredoc) int {
	for _, d := range docs {
		for i < len(rs) {
			j := indexRune(rs, i, '\n')
			if j < 0 {
				j = len(rs)
			}
			line := strings.TrimLeft(string(rs[i:j]), "\t")
			i = j + 1
			if line == d.delim {
				break
			}
		}
	}
	return min(i, len(rs))
}

// doubleQuoted reads a "…" string from i (after the quote) into w, reading
// command substitutions recursively; it returns the index of the closing quote.
func (p *shellParser) doubleQuoted(rs []rune, i int, w *strings.Builder, depth int) (int, bool) {
	for ; i < len(rs); i++ {
		switch c := rs[i]; {
		case c == '"':
			return i, true
		case c == '\\' && i+1 < len(rs):
			i++
			if !strings.ContainsRune("\"\\$`\n", rs[i]) {
				w.WriteRune('\\')
			}
			if rs[i] != '\n' {
				w.WriteRune(rs[i])
			}
		case c == '`':
			j := indexRune(rs, i+1, '`')
			if j < 0 {
				return 0, false
			}
			p.parse(string(rs[i+1:j]), depth+1)
			w.WriteString("$()")
			i = j
		case c == '$' && i+1 < len(rs) && rs[i+1] == '(':
			j := closingParen(rs, i+2)
			if j < 0 {
				return 0, false
			}
			p.parse(string(rs[i+2:j]), depth+1)
			w.WriteString("$()")
			i = j
		default:
			w.WriteRune(c)
		}
	}
	return 0, false
}

// closingParen returns the index of the ) closing a $( opened before i,
// skipping quoted text, here-document bodies and nested parentheses; -1 when
// there is none.
func closingParen(rs []rune, i int) int {
	depth := 1
	var docs []heredoc
	for ; i < len(rs); i++ {
		switch rs[i] {
		case '\\':
			i++
		case '\n':
			if len(docs) > 0 {
				i = skipHeredocs(rs, i+1, docs) - 1
				docs = nil
			}
		case '<':
			if i+2 < len(rs) && rs[i+1] == '<' && rs[i+2] != '<' {
				j := i + 2
				for j < len(rs) && (rs[j] == '-' || rs[j] == ' ' || rs[j] == '\t') {
					j++
				}
				k := j
				for k < len(rs) && !strings.ContainsRune(" \t\n;&|()<>", rs[k]) {
					k++
				}
				docs = append(docs, heredoc{delim: strings.Trim(string(rs[j:k]), `'"`)})
				i = k - 1
			}
		case '\'':
			if i = indexRune(rs, i+1, '\''); i < 0 {
				return -1
			}
		case '"':
			for i++; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' {
					i++
				}
			}
			if i >= len(rs) {
				return -1
			}
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

func indexRune(rs []rune, from int, r rune) int {
	for i := from; i < len(rs); i++ {
		if rs[i] == r {
			return i
		}
	}
	return -1
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// reserved words that may start a simple command's words.
var reserved = map[string]bool{"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true,
	"done": true, "while": true, "until": true, "!": true, "{": true, "}": true, "time": true, "case": true, "esac": true}

// wrappers run their arguments as a command; flagArg lists their flags that take a value.
var wrappers = map[string]bool{"env": true, "sudo": true, "doas": true, "command": true, "builtin": true,
	"exec": true, "nohup": true, "time": true, "nice": true, "timeout": true, "xargs": true, "stdbuf": true,
	"ionice": true, "setsid": true, "npx": true, "unbuffer": true}

var flagArg = map[string]bool{"-u": true, "-g": true, "-n": true, "-s": true, "-k": true, "-I": true,
	"-P": true, "-L": true, "-d": true, "-C": true, "-E": true, "-a": true, "-c": true}

var durationArg = regexp.MustCompile(`^[0-9.]+[smhd]?$`)

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true}

// normalize strips what does not change which program runs: leading
// assignments and reserved words, wrappers with their options, and the
// directory of argv[0]. It returns nil for a command that is only wrappers.
func normalize(argv []string) []string {
	for len(argv) > 0 {
		switch w := argv[0]; {
		case assignment.MatchString(w), reserved[w]:
			argv = argv[1:]
		case wrappers[path.Base(w)]:
			name := path.Base(w)
			argv = argv[1:]
			for len(argv) > 0 && strings.HasPrefix(argv[0], "-") && argv[0] != "-" {
				if flagArg[argv[0]] && name != "command" && len(argv) > 1 {
					argv = argv[1:]
				}
				argv = argv[1:]
			}
			if name == "timeout" && len(argv) > 0 && durationArg.MatchString(argv[0]) {
				argv = argv[1:]
			}
		default:
			out := append([]string{path.Base(w)}, argv[1:]...)
			if out[0] == "git" {
				out = append([]string{"git"}, gitSubcommand(out[1:])...)
			}
			return out
		}
	}
	return nil
}

// shellScript returns the script a shell runs with -c (sh -c 'SCRIPT',
// bash -lc 'SCRIPT'), or eval's arguments, and whether there is one.
func shellScript(argv []string) (string, bool) {
	if argv[0] == "eval" {
		return strings.Join(argv[1:], " "), len(argv) > 1
	}
	if !shells[argv[0]] {
		return "", false
	}
	for i, a := range argv[1:] {
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			continue
		}
		if strings.Contains(a, "c") && i+2 < len(argv) {
			return argv[i+2], true
		}
	}
	return "", false
}

// commandLine is what a command line tells a permission decision.
type commandLine struct {
	// commands are the normalised simple commands, argv joined by spaces.
	commands []string
	// actions are the loopx actions the commands map to (see commandAction).
	actions []string
	// writes are the files the commands write: redirection targets and the
	// operands of common file mutators (rm, mv, cp, tee, sed -i, …).
	writes []string
	// parsed is false when the line could not be read.
	parsed bool
}

// readCommandLine reads line into simple commands, actions and written files.
func readCommandLine(line string) commandLine {
	cl := commandLine{parsed: true}
	var walk func(cmds []simpleCmd, depth int)
	walk = func(cmds []simpleCmd, depth int) {
		for _, c := range cmds {
			cl.writes = append(cl.writes, c.writes...)
			argv := normalize(c.argv)
			if len(argv) == 0 {
				continue
			}
			cl.commands = append(cl.commands, strings.Join(argv, " "))
			if a := commandAction(argv); a != "" {
				cl.actions = appendNew(cl.actions, a)
			}
			cl.writes = append(cl.writes, mutatedFiles(argv)...)
			if script, ok := shellScript(argv); ok {
				if depth >= maxShellDepth {
					cl.parsed = false
					continue
				}
				inner, ok := parseShell(script)
				cl.parsed = cl.parsed && ok
				walk(inner, depth+1)
			}
		}
	}
	cmds, ok := parseShell(line)
	cl.parsed = ok
	walk(cmds, 0)
	return cl
}

// commandAction maps a normalised simple command to a loopx action, the
// names spec gates guard (goals.<g>.gates.<n>.guards):
//
//	git push …                → git.push
//	git merge … / gh pr merge → git.merge
//	git commit …              → git.commit
//	git tag …                 → git.tag
//	npm|yarn|pnpm publish …   → npm.publish
//	loopx … gate answer …     → loopx.gate.answer
//
// Global options before the subcommand (git -C DIR, loopx --project DIR) are
// skipped. Anything else maps to "" (no action beyond shell.exec).
func commandAction(argv []string) string {
	args := operands(argv[1:], map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true,
		"--namespace": true, "--project": true, "-R": true, "--repo": true})
	at := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch argv[0] {
	case "git":
		switch at(0) {
		case "push", "merge", "commit", "tag":
			return "git." + at(0)
		}
	case "gh":
		if at(0) == "pr" && at(1) == "merge" {
			return "git.merge"
		}
	case "npm", "yarn", "pnpm":
		if at(0) == "publish" || at(1) == "publish" {
			return "npm.publish"
		}
	case "loopx":
		if at(0) == "gate" && at(1) == "answer" {
			return "loopx.gate.answer"
		}
	}
	return ""
}

// operands returns args without options; an option in valued (given
// without "=") also drops the word after it. After "--" all are operands.
func operands(args []string, valued map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(a, "-") && a != "-":
			if valued[a] {
				i++
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// mutatedFiles returns the files a common file-mutating command writes:
// every operand of rm, rmdir, unlink, shred, touch, truncate, mkdir, tee, mv,
// chmod/chown/chgrp (after the mode or owner), sed -i and perl -i (after the
// script); the last operand of cp, install and ln; dd's of=.
func mutatedFiles(argv []string) []string {
	ops := operands(argv[1:], map[string]bool{"-s": argv[0] == "truncate", "-m": true, "-o": argv[0] == "install",
		"-g": argv[0] == "install", "-t": false, "-e": true, "-f": argv[0] == "sed"})
	switch argv[0] {
	case "rm", "rmdir", "unlink", "shred", "touch", "truncate", "mkdir", "tee", "mv":
		return ops
	case "chmod", "chown", "chgrp":
		if len(ops) > 1 {
			return ops[1:]
		}
	case "sed", "perl":
		inPlace, script := false, true
		for _, a := range argv[1:] {
			inPlace = inPlace || strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "--in-place") || (argv[0] == "perl" && strings.HasPrefix(a, "-") && strings.Contains(a, "i"))
			script = script && a != "-e" && a != "-f" && !strings.HasPrefix(a, "--expression")
		}
		if inPlace && script && len(ops) > 1 {
			return ops[1:]
		}
		if inPlace && !script {
			return ops
		}
	case "cp", "install", "ln":
		if len(ops) > 1 {
			return ops[len(ops)-1:]
		}
	case "dd":
		for _, a := range argv[1:] {
			if f, ok := strings.CutPrefix(a, "of="); ok {
				return []string{f}
			}
		}
	}
	return nil
}

func appendNew(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// gitSubcommand drops git's global options (`-C DIR`, `-c K=V`,
// `--git-dir=…`, `--no-pager`, …) before the subcommand, so that patterns
// such as `git push --force*` match `git -C . push --force` too.
func gitSubcommand(args []string) []string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch a := args[0]; {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--exec-path" || a == "--config-env":
			if len(args) < 2 {
				return args
			}
			args = args[2:]
		default:
			args = args[1:]
		}
	}
	return args
}
