// Package pathfacts says what a path is to the permission policy
// (input.permission.paths): where it is relative to the project, whether
// a symlink or a hard link takes it elsewhere (into loopx's own files,
// out of the project), and its names under the user's home. It only reads
// the file system; the policy judges the facts.
package pathfacts

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/input"
)

// Expand returns the files a shell word names: "~" is the home directory,
// and a word with glob characters the files it matches (as the shell would
// expand it, dotfiles included: erring towards more paths), else the word.
func Expand(dir, w string) []string {
	if w == "~" || strings.HasPrefix(w, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			w = filepath.Join(home, w[1:])
		}
	}
	if !strings.ContainsAny(w, "*?[") {
		return []string{w}
	}
	p := w
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if m, err := filepath.Glob(p); err == nil && len(m) > 0 {
		return m
	}
	return []string{w}
}

// Roots returns the project root as given (absolute, cleaned) and with its
// symlinks resolved; paths are compared against both.
func Roots(root string) [2]string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = filepath.Clean(root)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	return [2]string{abs, real}
}

// HomeRoots returns the user's home directory ($HOME, absolute, cleaned)
// and with its symlinks resolved; ok is false when there is none.
func HomeRoots() (roots [2]string, ok bool) {
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return roots, false
	}
	return Roots(home), true
}

// Home sets f.Home and f.ContainsHome for p (absolute, or relative to
// dir) against the home directory's roots (HomeRoots): the names of p and
// of p with its symlinks resolved relative to the home, and whether p
// contains the home.
func Home(homes [2]string, dir, p string, f *input.PathFacts) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	for _, q := range []string{p, resolvedOr(p)} {
		if rel, ok := Rel(homes, q); ok && !slices.Contains(f.Home, rel) {
			f.Home = append(f.Home, rel)
		}
		for _, h := range homes {
			if rel, err := filepath.Rel(q, h); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				f.ContainsHome = true
			}
		}
	}
}

// State sets f.LoopxState for p (absolute, or relative to dir) when p,
// as written or with its symlinks resolved, lies in loopx's state
// directory (its roots, Roots of $XDG_STATE_HOME/loopx) or contains it.
func State(states [2]string, dir, p string, f *input.PathFacts) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	for _, q := range []string{p, resolvedOr(p)} {
		if _, ok := Rel(states, q); ok {
			f.LoopxState = true
		}
		for _, s := range states {
			if rel, err := filepath.Rel(q, s); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				f.LoopxState = true
			}
		}
	}
}

// resolvedOr is p with its symlinks resolved, or p when it cannot be.
func resolvedOr(p string) string {
	if real, ok := resolve(p); ok {
		return real
	}
	return p
}

// Of normalises p (absolute, or relative to dir) against the project's
// roots (Roots): its path relative to the project (or absolute outside
// it), resolved through symlinks and hard links into loopx/ or .loopx/,
// and whether it lies, leads or contains the project outside.
func Of(roots [2]string, dir, p string) input.PathFacts {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	rel, ok := Rel(roots, p)
	if !ok {
		slash := filepath.ToSlash(p)
		f := input.PathFacts{Path: slash, Resolved: slash, OutsideProject: true}
		for _, root := range roots {
			if rel, err := filepath.Rel(p, root); err == nil && !strings.HasPrefix(rel, "..") {
				f.ContainsProject = true
			}
		}
		return f
	}
	f := input.PathFacts{Path: rel, Resolved: rel}
	real, ok := resolve(p)
	if !ok {
		f.Resolved, f.SymlinkOutside = "", true
		return f
	}
	if r, ok := Rel(roots, real); ok {
		f.Resolved = r
		if own, ok := hardLinkIntoOwn(roots[1], real); ok {
			f.Resolved = own
		}
	} else {
		f.Resolved, f.SymlinkOutside = filepath.ToSlash(real), true
	}
	return f
}

// maxOwnFiles bounds the files of loopx/ and .loopx/ compared with a hard
// link.
const maxOwnFiles = 4096

// hardLinkIntoOwn returns the file under root's loopx/ or .loopx/ (relative
// to root, slash-separated) that p is a hard link of, if any; only a
// regular file with more than one link is looked up.
func hardLinkIntoOwn(root, p string) (string, bool) {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || linkCount(fi) < 2 {
		return "", false
	}
	found, n := "", 0
	for _, dir := range []string{"loopx", ".loopx"} {
		_ = filepath.WalkDir(filepath.Join(root, dir), func(q string, d fs.DirEntry, err error) error {
			if err != nil || found != "" || n >= maxOwnFiles {
				return filepath.SkipDir
			}
			n++
			if !d.Type().IsRegular() {
				return nil
			}
			if qi, err := d.Info(); err == nil && os.SameFile(fi, qi) {
				if rel, err := filepath.Rel(root, q); err == nil {
					found = filepath.ToSlash(rel)
				}
			}
			return nil
		})
	}
	return found, found != ""
}

// Rel returns p relative to the first of roots that contains it,
// slash-separated; ok is false when none does.
func Rel(roots [2]string, p string) (string, bool) {
	for _, root := range roots {
		rel, err := filepath.Rel(root, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// resolve returns the absolute, cleaned path p with every symlink resolved:
// EvalSymlinks on the longest existing prefix, the missing rest appended as
// written. A dangling symlink is followed by reading its target; ok is false
// when the path cannot be resolved (a loop, an unreadable link).
func resolve(p string) (string, bool) {
	for range 40 {
		prefix, rest := p, ""
		for {
			if _, err := os.Lstat(prefix); err == nil {
				break
			}
			parent := filepath.Dir(prefix)
			if parent == prefix {
				break
			}
			rest = filepath.Join(filepath.Base(prefix), rest)
			prefix = parent
		}
		real, err := filepath.EvalSymlinks(prefix)
		if err == nil {
			return filepath.Join(real, rest), true
		}
		target, lerr := os.Readlink(prefix) // prefix is a dangling symlink
		if lerr != nil {
			return "", false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(prefix), target)
		}
		p = filepath.Join(target, rest)
	}
	return "", false
}
