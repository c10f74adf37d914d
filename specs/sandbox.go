package specs

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/token"
	"github.com/bmatcuk/doublestar/v4"
	"github.com/loopx-dev/loopx/internal/anchor"
)

// checkSandbox refuses each glob of project.sandbox.writable that names
// what the sandbox keeps read-only or hidden whatever writable says:
// git's own files (a ".git" directory), loopx's spec and state (the
// project's loopx/, any ".loopx" directory), or loopx's state directory
// ($XDG_STATE_HOME/loopx, every project's anchor) — named, below the glob,
// or inside one of its matches. The schema checks the mode and that each
// glob is absolute or starts with "~/".
func (l *loader) checkSandbox(spec cue.Value) {
	globs, ok := strs(lookup(spec, "project", "sandbox", "writable"))
	if !ok {
		return
	}
	home, _ := os.UserHomeDir()
	state, _ := anchor.StateDir()
	root := ""
	if abs, err := filepath.Abs(l.src.dir); err == nil {
		root = filepath.Dir(abs)
	}
	for i, g := range globs {
		if why := writableProblem(g, home, root, state); why != "" {
			l.add(l.posError(token.NoPos, []string{"project", "sandbox", "writable", strconv.Itoa(i)}, CodeInvalid,
				fmt.Sprintf("writable %q %s", g, why)))
		}
	}
}

// writableProblem says what is wrong with the writable glob g ("" when
// nothing is, or the schema reports it): home is the home directory
// ("~/"), root the project root, state loopx's state directory ("" when
// unknown).
func writableProblem(g, home, root, state string) string {
	p := g
	if rest, ok := strings.CutPrefix(g, "~/"); ok {
		if home == "" {
			return ""
		}
		p = filepath.Join(home, rest)
	} else if !strings.HasPrefix(g, "/") {
		return ""
	}
	p = filepath.ToSlash(filepath.Clean(p))
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case ".git":
			return "names git's own files (.git/): its hooks and config stay read-only inside, and a linked worktree's git directory is writable already"
		case ".loopx":
			return "names loopx's state (.loopx/), which stays read-only inside"
		}
	}
	// "dir/**" binds dir (the sandbox's expansion); the glob's literal
	// part is the directory every match is in.
	pattern := strings.TrimSuffix(p, "/**")
	if pattern == "" {
		pattern = "/"
	}
	prefix := literalPrefix(pattern)
	if root != "" && under(prefix, filepath.ToSlash(filepath.Join(root, "loopx"))) {
		return "names the project's spec (loopx/), which stays read-only inside"
	}
	if state == "" {
		return ""
	}
	state = filepath.ToSlash(filepath.Clean(state))
	if under(prefix, state) {
		return fmt.Sprintf("names loopx's state directory (%s: every project's anchor), which stays hidden inside", state)
	}
	for a := state; under(a, prefix); a = filepath.ToSlash(filepath.Dir(a)) {
		if ok, _ := doublestar.Match(pattern, a); ok {
			return fmt.Sprintf("would make writable %s, which holds loopx's state directory (%s: every project's anchor); name the directories beside it", a, state)
		}
		if a == prefix || a == "/" {
			break
		}
	}
	return ""
}

// literalPrefix is the part of a slash-separated glob before its first
// segment with a wildcard (the whole glob when it has none).
func literalPrefix(g string) string {
	parts := strings.Split(g, "/")
	for i, s := range parts {
		if strings.ContainsAny(s, "*?[{") {
			if i == 0 {
				return "/"
			}
			return strings.Join(parts[:i], "/")
		}
	}
	return g
}

// under reports whether the slash-separated path p is dir or below it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
