package shell

import (
	"fmt"
	"strings"
)

// This file reads git's configuration files (never by running git): the
// aliases that name what `git <alias>` runs, and the remotes' settings
// that make a plain `git push` a force push.

// GitConfig is what the shell reader needs of git's configuration (the
// project's .git/config and the user's, read by the caller with
// ParseGitConfig and merged with Merge). The zero value knows no alias.
type GitConfig struct {
	// Aliases maps each alias name (alias.<name>, lower-cased) to its
	// value; the last one set wins.
	Aliases map[string]string
	// ForcePush says a remote's configured push refspec forces (+…) or a
	// remote is a mirror (remote.<name>.mirror): a `git push` without
	// refspecs may overwrite what the remote holds.
	ForcePush bool
	// Unsure says part of the configuration could not be read (an
	// include, a line loopx does not read, an unreadable file): then no
	// alias resolves (what the rest says could be overridden).
	Unsure bool
	// HooksPaths are the values of core.hooksPath, in the order set, as
	// written (the last one is the hooks directory git uses).
	HooksPaths []string
	// Includes are the files include.path and includeIf.<cond>.path name,
	// as written, whatever the condition.
	Includes []string
}

// Merge returns c with later's settings over it (git reads the system,
// then the user's, then the repository's file).
func (c GitConfig) Merge(later GitConfig) GitConfig {
	out := GitConfig{Aliases: map[string]string{}, ForcePush: c.ForcePush || later.ForcePush, Unsure: c.Unsure || later.Unsure,
		HooksPaths: append(append([]string{}, c.HooksPaths...), later.HooksPaths...), Includes: append(append([]string{}, c.Includes...), later.Includes...)}
	for k, v := range c.Aliases {
		out.Aliases[k] = v
	}
	for k, v := range later.Aliases {
		out.Aliases[k] = v
	}
	return out
}

// alias returns what `git name` runs when name is an alias: ok is false
// when no alias of that name is known or the configuration is unsure.
func (c *GitConfig) alias(name string) (string, bool) {
	if c == nil || c.Unsure {
		return "", false
	}
	v, ok := c.Aliases[strings.ToLower(name)]
	return v, ok
}

// maxGitConfig caps a configuration file loopx reads (bytes).
const maxGitConfig = 1 << 20

// ParseGitConfig reads one git configuration file's text (git-config(1)'s
// syntax: sections, subsections, quoted values, escapes, continuation
// lines, comments) into the settings GitConfig holds. Anything it does not
// read exactly as git would (an include or includeIf, a malformed line, a
// file over 1 MiB) makes the result Unsure, and the error says what; the
// settings read before it are kept. After an include, the files it names
// and the hooks paths are still read (Includes, HooksPaths), the aliases
// no longer.
func ParseGitConfig(text string) (GitConfig, error) {
	c := GitConfig{Aliases: map[string]string{}}
	if len(text) > maxGitConfig {
		c.Unsure = true
		return c, fmt.Errorf("git config of %d bytes is over the %d KiB cap", len(text), maxGitConfig>>10)
	}
	p := gitConfigParser{s: text}
	var included error
	for {
		section, sub, key, val, ok, err := p.next()
		if err != nil {
			c.Unsure = true
			return c, err
		}
		if !ok {
			return c, included
		}
		switch {
		case (section == "include" && !sub.set || section == "includeif" && sub.set) && key == "path":
			c.Includes = append(c.Includes, val)
			fallthrough
		case section == "include" || section == "includeif":
			c.Unsure = true
			if included == nil {
				included = fmt.Errorf("line %d: %s: loopx does not follow includes", p.lineNo(), section)
			}
		case section == "core" && !sub.set && key == "hookspath":
			c.HooksPaths = append(c.HooksPaths, val)
		case included != nil:
			// What an include says could override what follows.
		case section == "alias" && !sub.set:
			c.Aliases[key] = val
		case section == "remote" && sub.set && key == "push" && strings.HasPrefix(strings.TrimSpace(val), "+"):
			c.ForcePush = true
		case section == "remote" && sub.set && key == "mirror" && gitTrue(val):
			c.ForcePush = true
		}
	}
}

// gitTrue reads a git boolean as true (a key without a value is true).
func gitTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "true", "yes", "on", "1":
		return true
	}
	return false
}

// subsection is a section's subsection, when it has one.
type subsection struct {
	name string
	set  bool
}

// gitConfigParser walks a configuration file's text.
type gitConfigParser struct {
	s       string
	i       int
	section string
	sub     subsection
}

// next returns the next variable (section and key lower-cased), ok false
// at the end. Errors: a line git would refuse or loopx does not read.
func (p *gitConfigParser) next() (section string, sub subsection, key, val string, ok bool, err error) {
	for p.i < len(p.s) {
		p.skipSpace()
		if p.i >= len(p.s) {
			break
		}
		switch c := p.s[p.i]; {
		case c == '\n':
			p.i++
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			if err := p.header(); err != nil {
				return "", subsection{}, "", "", false, fmt.Errorf("line %d: %v", p.lineNo(), err)
			}
		case isAlpha(c):
			if p.section == "" {
				return "", subsection{}, "", "", false, fmt.Errorf("line %d: a variable outside any section", p.lineNo())
			}
			start := p.i
			for p.i < len(p.s) && (isAlpha(p.s[p.i]) || p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '-') {
				p.i++
			}
			key = strings.ToLower(p.s[start:p.i])
			p.skipSpace()
			if p.i < len(p.s) && p.s[p.i] == '=' {
				p.i++
				val, err = p.value()
				if err != nil {
					return "", subsection{}, "", "", false, fmt.Errorf("line %d: %v", p.lineNo(), err)
				}
			} else if p.i < len(p.s) && p.s[p.i] != '\n' && p.s[p.i] != '#' && p.s[p.i] != ';' {
				return "", subsection{}, "", "", false, fmt.Errorf("line %d: %q after key %s", p.lineNo(), p.s[p.i], key)
			} else {
				p.skipLine()
			}
			return p.section, p.sub, key, val, true, nil
		default:
			return "", subsection{}, "", "", false, fmt.Errorf("line %d: unexpected %q", p.lineNo(), c)
		}
	}
	return "", subsection{}, "", "", false, nil
}

// lineNo is the line (from 1) the parser is on.
func (p *gitConfigParser) lineNo() int { return strings.Count(p.s[:p.i], "\n") + 1 }

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func (p *gitConfigParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *gitConfigParser) skipLine() {
	for p.i < len(p.s) && p.s[p.i] != '\n' {
		p.i++
	}
}

// header reads "[section]", `[section "sub"]` or the old "[section.sub]".
func (p *gitConfigParser) header() error {
	p.i++ // [
	start := p.i
	for p.i < len(p.s) && (isAlpha(p.s[p.i]) || p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '-' || p.s[p.i] == '.') {
		p.i++
	}
	name := strings.ToLower(p.s[start:p.i])
	if name == "" {
		return fmt.Errorf("a section without a name")
	}
	p.sub = subsection{}
	if before, after, ok := strings.Cut(name, "."); ok { // [section.sub]: the subsection lower-cased
		name, p.sub = before, subsection{name: after, set: true}
	}
	if p.i < len(p.s) && p.s[p.i] == ' ' {
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != '"' || p.sub.set {
			return fmt.Errorf("a subsection must be quoted")
		}
		p.i++
		var b strings.Builder
		for {
			if p.i >= len(p.s) || p.s[p.i] == '\n' {
				return fmt.Errorf("an unterminated subsection")
			}
			c := p.s[p.i]
			p.i++
			if c == '"' {
				break
			}
			if c == '\\' {
				if p.i >= len(p.s) || p.s[p.i] == '\n' {
					return fmt.Errorf("an unterminated subsection")
				}
				c = p.s[p.i]
				p.i++
			}
			b.WriteByte(c)
		}
		p.sub = subsection{name: b.String(), set: true}
	}
	if p.i >= len(p.s) || p.s[p.i] != ']' {
		return fmt.Errorf("a section header without ]")
	}
	p.i++
	p.section = name
	return nil
}

// value reads a variable's value after "=": leading and trailing blanks
// dropped, quotes removed, escapes (\" \\ \n \t \b) read, a backslash at
// the end of a line continuing it, a comment outside quotes ending it.
func (p *gitConfigParser) value() (string, error) {
	var b strings.Builder
	quoted := false
	pending := "" // blanks kept only when more value follows
	started := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\n':
			if quoted {
				return "", fmt.Errorf("an unterminated quote")
			}
			return b.String(), nil
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return b.String(), nil
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			if started {
				pending += string(c)
			}
		case c == '"':
			b.WriteString(pending)
			pending, started = "", true
			quoted = !quoted
		case c == '\\':
			if p.i >= len(p.s) {
				return "", fmt.Errorf("a backslash at the end of the file")
			}
			e := p.s[p.i]
			p.i++
			if e == '\n' {
				continue
			}
			b.WriteString(pending)
			pending, started = "", true
			switch e {
			case '"', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				return "", fmt.Errorf("an unknown escape \\%c", e)
			}
		default:
			b.WriteString(pending)
			pending, started = "", true
			b.WriteByte(c)
		}
	}
	if quoted {
		return "", fmt.Errorf("an unterminated quote")
	}
	return b.String(), nil
}
