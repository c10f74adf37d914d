// Package glob validates the doublestar globs of a todo's write scope and
// decides whether two scopes overlap (some path matches both), the facts
// behind a claim's scope conflict. It is pure: it reads no
// file and knows nothing of todos, leases or the engine.
package glob

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// maxBraceExpansions bounds brace expansion; a pattern with more
// alternatives is treated as overlapping everything (safe side).
const maxBraceExpansions = 256

// Validate checks that every glob of a todo's write scope is a valid
// doublestar pattern relative to the project root. The error names the
// first bad pattern and says what is wanted; the caller gives it its code
// (the engine's bad_scope).
func Validate(globs []string) error {
	for _, g := range globs {
		n := normGlob(g)
		if n == "" || strings.HasPrefix(strings.TrimSpace(g), "/") || strings.HasPrefix(n, "../") || n == ".." {
			return fmt.Errorf("--scope %q: want a glob relative to the project root (e.g. docs/** or api/*.go)", g)
		}
		if !doublestar.ValidatePattern(n) {
			return fmt.Errorf("--scope %q is not a valid glob", g)
		}
	}
	return nil
}

// Overlap reports whether some path matches both a glob of a and a
// glob of b ("docs/**" overlaps "docs/a.md"; "api/*.go" does not overlap
// "api/*.md"), and returns the first overlapping pair. A todo without a
// scope overlaps nothing. Character classes are compared conservatively
// (two classes are taken to share a character).
func Overlap(a, b []string) (string, string, bool) {
	for _, x := range a {
		for _, y := range b {
			if globsOverlap(x, y) {
				return x, y, true
			}
		}
	}
	return "", "", false
}

// normGlob cleans a scope glob: no surrounding blanks, no leading "./",
// and a trailing "/" means the whole directory ("docs/" = "docs/**").
func normGlob(g string) string {
	g = strings.TrimSpace(g)
	for strings.HasPrefix(g, "./") {
		g = g[2:]
	}
	g = strings.TrimLeft(g, "/")
	if strings.HasSuffix(g, "/") {
		g += "**"
	}
	return g
}

// globsOverlap reports whether one path matches both doublestar globs.
func globsOverlap(p, q string) bool {
	p, q = normGlob(p), normGlob(q)
	if p == "" || q == "" {
		return false
	}
	if lit := !hasMeta(q); lit || !hasMeta(p) {
		if lit {
			return doublestar.MatchUnvalidated(p, q) // q is one path
		}
		return doublestar.MatchUnvalidated(q, p)
	}
	ps, qs := expandBraces(p), expandBraces(q)
	if ps == nil || qs == nil {
		return true
	}
	for _, x := range ps {
		for _, y := range qs {
			if segsOverlap(strings.Split(x, "/"), strings.Split(y, "/")) {
				return true
			}
		}
	}
	return false
}

func hasMeta(g string) bool { return strings.ContainsAny(g, "*?[{\\") }

// segsOverlap intersects two globs split into path segments, where "**"
// matches zero or more whole segments.
func segsOverlap(a, b []string) bool {
	seen := map[[2]int]bool{}
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		k := [2]int{i, j}
		if v, ok := seen[k]; ok {
			return v
		}
		seen[k] = false
		var r bool
		switch {
		case i == len(a) && j == len(b):
			r = true
		case i < len(a) && a[i] == "**":
			r = rec(i+1, j) || (j < len(b) && rec(i, j+1))
		case j < len(b) && b[j] == "**":
			r = rec(i, j+1) || (i < len(a) && rec(i+1, j))
		case i == len(a) || j == len(b):
			r = false
		default:
			r = segOverlap(a[i], b[j]) && rec(i+1, j+1)
		}
		seen[k] = r
		return r
	}
	return rec(0, 0)
}

// token is one element of a single-segment glob.
type token struct {
	star  bool   // "*" (any run of characters)
	any   bool   // "?"
	class string // "[…]" as written
	lit   rune
}

func tokenize(seg string) []token {
	var out []token
	rs := []rune(seg)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			if len(out) == 0 || !out[len(out)-1].star {
				out = append(out, token{star: true})
			}
		case '?':
			out = append(out, token{any: true})
		case '[':
			j := i + 1
			if j < len(rs) && (rs[j] == '!' || rs[j] == '^') {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				out = append(out, token{lit: c})
				continue
			}
			out = append(out, token{class: string(rs[i : j+1])})
			i = j
		case '\\':
			if i+1 < len(rs) {
				i++
			}
			out = append(out, token{lit: rs[i]})
		default:
			out = append(out, token{lit: c})
		}
	}
	return out
}

// compatible reports whether two single-character tokens can produce the
// same character.
func compatible(a, b token) bool {
	switch {
	case a.any || b.any:
		return true
	case a.class != "" && b.class != "":
		return true // conservative
	case a.class != "":
		return classHas(a.class, b.lit)
	case b.class != "":
		return classHas(b.class, a.lit)
	}
	return a.lit == b.lit
}

func classHas(class string, c rune) bool {
	if strings.HasPrefix(class, "[!") {
		class = "[^" + class[2:]
	}
	ok, err := path.Match(class, string(c))
	return ok || err != nil
}

// segOverlap reports whether one string matches both single-segment globs.
func segOverlap(x, y string) bool {
	a, b := tokenize(x), tokenize(y)
	seen := map[[2]int]bool{}
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		k := [2]int{i, j}
		if v, ok := seen[k]; ok {
			return v
		}
		seen[k] = false
		var r bool
		switch {
		case i == len(a) && j == len(b):
			r = true
		case i < len(a) && a[i].star:
			r = rec(i+1, j) || (j < len(b) && rec(i, j+1))
		case j < len(b) && b[j].star:
			r = rec(i, j+1) || (i < len(a) && rec(i+1, j))
		case i == len(a) || j == len(b):
			r = false
		default:
			r = compatible(a[i], b[j]) && rec(i+1, j+1)
		}
		seen[k] = r
		return r
	}
	return rec(0, 0)
}

// expandBraces expands "{a,b}" alternatives (nested too); nil when there
// would be more than maxBraceExpansions.
func expandBraces(p string) []string {
	depth, start := 0, -1
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				start = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			var out []string
			for _, alt := range splitTopLevel(p[start+1 : i]) {
				more := expandBraces(p[:start] + alt + p[i+1:])
				if more == nil || len(out)+len(more) > maxBraceExpansions {
					return nil
				}
				out = append(out, more...)
			}
			return out
		}
	}
	return []string{p}
}

// splitTopLevel splits s at the commas outside nested braces.
func splitTopLevel(s string) []string {
	var out []string
	depth, last := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[last:i])
				last = i + 1
			}
		}
	}
	return append(out, s[last:])
}
