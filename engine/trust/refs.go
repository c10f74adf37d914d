package trust

import (
	"errors"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/internal/safegit"
)

// maxRefFileBytes bounds a pseudo-ref file (FETCH_HEAD lists every
// fetched ref; a few MiB is a very large remote).
const maxRefFileBytes = 16 << 20

// This file reads git's refs at a scan and what a ref moved between two
// scans brings in: a commit, an amend, a merge, a pull or a checkout
// during a round is judged as the paths it changes, like a working-tree
// change.

// readRefs reads HEAD (the commit it names; absent while unborn), every
// ref, the remote-tracking ones included, and the pseudo-refs a human's
// next git command uses (pseudoRefs, read from the files in git's
// directory dir), name to object id; why says what git could not read.
func readRefs(g safegit.Git, dir string) (refs map[string]string, why string) {
	refs = map[string]string{}
	out, err := g.Run("for-each-ref", "--format=%(objectname) %(refname)")
	if err != nil {
		return nil, err.Error()
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if oid, name, ok := strings.Cut(line, " "); ok {
			refs[name] = oid
		}
	}
	if out, err := g.Run("rev-parse", "-q", "--verify", "HEAD^{commit}"); err == nil {
		refs["HEAD"] = strings.TrimSpace(string(out))
	} else if !exitCode(err, 1) {
		return nil, err.Error()
	}
	readPseudoRefs(refs, dir)
	return refs, ""
}

// pseudoRefs are the files in git's directory that name commits a human's
// next git command uses: a merge's, cherry-pick's, revert's or rebase's
// (git merge --continue, git commit), the fetched ones (git merge
// FETCH_HEAD), and the HEAD before the last reset or merge.
var pseudoRefs = []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "ORIG_HEAD", "FETCH_HEAD"}

// readPseudoRefs adds to refs each object id of each pseudo-ref file in
// dir, as "<file>:<line>" (one per line: FETCH_HEAD and an octopus
// MERGE_HEAD hold several); a line that names no object id is kept as
// "?" and the line itself, so that any change of it is seen.
func readPseudoRefs(refs map[string]string, dir string) {
	if dir == "" {
		return
	}
	for _, name := range pseudoRefs {
		b, err := regularfile.ReadFile(filepath.Join(dir, name), maxRefFileBytes)
		if err != nil {
			continue
		}
		for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			oid, _, _ := strings.Cut(line, "\t")
			if oid = strings.TrimSpace(oid); !isObjectID(oid) {
				oid = "?" + line
			}
			refs[name+":"+strconv.Itoa(i)] = oid
		}
	}
}

// isObjectID reports whether s is a full object id (sha1 or sha256, hex).
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// foreign reports whether ref name is one that loopx judges by the commits
// it brings that no ref of the first scan reached: a remote-tracking ref
// (a fetch moves it to commits built elsewhere; an agent can move it to
// one it built, which the human's git merge origin/… brings in) and a
// pseudo-ref.
func foreign(name string) bool {
	return strings.HasPrefix(name, "refs/remotes/") || strings.Contains(name, ":")
}

// exitCode reports whether err is an exit with code.
func exitCode(err error, code int) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == code
}

// Committed lists the paths (relative to the root; outside it, absolute)
// that the refs moved between two scans bring in, sorted: for a moved ref,
// what differs between its old and new commit; for a new one, what it
// changes since where it leaves the history of the first scan's HEAD (the
// whole tree when it shares none); for a remote-tracking ref or a
// pseudo-ref (foreign), what the commits it reaches that no ref of the
// first scan reached change; a notes ref (refs/notes/…) is itself
// the path (<git dir>/refs/notes/…). A deleted ref brings nothing in. Git
// reads only trees here (diff-tree --name-only, merge-base), under the
// locked configuration and without replace objects. Errors: git could not
// read a ref's commits (the round then fails closed).
func Committed(before, after Scan) ([]string, error) {
	if before.refs == nil || after.refs == nil {
		return nil, nil
	}
	g := after.git
	seen := map[string]bool{}
	names := make([]string, 0, len(after.refs))
	for name := range after.refs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		to, from := after.refs[name], before.refs[name]
		if to == from {
			continue
		}
		if strings.HasPrefix(to, "?") { // a pseudo-ref loopx cannot read: the file itself changed
			pseudo, _, _ := strings.Cut(name, ":")
			seen[after.sc.relKey(filepath.Join(after.dir, pseudo))] = true
			continue
		}
		if foreign(name) {
			paths, err := newCommitPaths(g, to, before.refs)
			if err != nil {
				return nil, err
			}
			for _, p := range paths {
				seen[after.sc.relKey(filepath.Join(after.top, filepath.FromSlash(p)))] = true
			}
			continue
		}
		if strings.HasPrefix(name, "refs/notes/") {
			// A notes ref's tree is named by the objects it annotates:
			// the change is the ref itself, named as a file of git's.
			seen[after.sc.relKey(filepath.Join(after.common, filepath.FromSlash(name)))] = true
			continue
		}
		if from == "" {
			base, err := forkPoint(g, before.refs["HEAD"], to)
			if err != nil {
				return nil, err
			}
			from = base
		}
		out, err := g.Run("diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--name-only", from, to)
		if err != nil {
			return nil, err
		}
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				seen[after.sc.relKey(filepath.Join(after.top, filepath.FromSlash(p)))] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// newCommitPaths lists the paths (slash, relative to the work tree's top)
// that the commits reachable from to, but from no ref of old, change
// against their parents (a root commit: all its files); git compares
// trees only (log --name-only).
func newCommitPaths(g safegit.Git, to string, old map[string]string) ([]string, error) {
	args := []string{"log", "-z", "--format=", "--name-only", "--no-renames", "--no-ext-diff", "--no-textconv", "-m", "--root", to, "--not"}
	seen := map[string]bool{}
	for _, oid := range old {
		if isObjectID(oid) && !seen[oid] {
			seen[oid] = true
			args = append(args, oid)
		}
	}
	out, err := g.Run(args...)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p = strings.TrimLeft(p, "\n"); p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// forkPoint is where commit to leaves the history of head (their merge
// base), or the empty tree when they share none (or head is unborn).
func forkPoint(g safegit.Git, head, to string) (string, error) {
	if head != "" {
		out, err := g.Run("merge-base", head, to)
		if err == nil {
			return strings.TrimSpace(string(out)), nil
		}
		if !exitCode(err, 1) {
			return "", err
		}
	}
	out, err := g.Run("hash-object", "-t", "tree", "--stdin")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
