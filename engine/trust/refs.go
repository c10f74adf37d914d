package trust

import (
	"errors"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loopx-dev/loopx/internal/safegit"
)

// This file reads git's refs at a scan and what a ref moved between two
// scans brings in: a commit, an amend, a merge, a pull or a checkout
// during a round is judged as the paths it changes, like a working-tree
// change.

// readRefs reads HEAD (the commit it names; absent while unborn) and every
// ref but the remote-tracking ones (a fetch records what a remote holds;
// bringing it in moves HEAD or a branch), name to object id; why says
// what git could not read.
func readRefs(g safegit.Git) (refs map[string]string, why string) {
	refs = map[string]string{}
	out, err := g.Run("for-each-ref", "--format=%(objectname) %(refname)")
	if err != nil {
		return nil, err.Error()
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		oid, name, ok := strings.Cut(line, " ")
		if ok && !strings.HasPrefix(name, "refs/remotes/") {
			refs[name] = oid
		}
	}
	if out, err := g.Run("rev-parse", "-q", "--verify", "HEAD^{commit}"); err == nil {
		refs["HEAD"] = strings.TrimSpace(string(out))
	} else if !exitCode(err, 1) {
		return nil, err.Error()
	}
	return refs, ""
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
// whole tree when it shares none). A deleted ref brings nothing in. Git
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
