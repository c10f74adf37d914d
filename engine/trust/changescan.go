package engine

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loopx-dev/loopx/engine/declog"
)

// What the agent changed (design §16, README "Trust model"). `loopx run`
// scans the project before and after the agent command:
//   - the protected files, always and uncapped, by content (sha256, mode,
//     symlink target): loopx/ (every file, node_modules and dotfiles
//     included: whatever the policy loader could read is watched), .loopx/
//     except the files loopx itself writes while a round runs (see
//     loopxWrites), git's hooks, config and info/exclude, and the agent
//     hosts' hook and tool settings at the project root;
//   - inside git, every other change `git status --porcelain -z` lists
//     (untracked files one by one, uncapped), each with its content hash,
//     so that a file already dirty and edited again is seen;
//   - outside git, a walk of at most MaxScanFiles files by size and
//     modification time; reaching the cap makes the scan incomplete, and an
//     incomplete scan fails the round (Run).

// MaxScanFiles caps the walk of a work tree outside git (files outside
// the protected ones).
const MaxScanFiles = 50000

// treeScan is one scan of the project: path (slash, relative to the root;
// outside the root, absolute) to signature.
type treeScan struct {
	sigs map[string]fileSig
	// incomplete says why the scan could not see every change ("" when it
	// could): the walk reached MaxScanFiles, git status failed.
	incomplete string
}

// hostSettingFiles are the agent hosts' hook and tool settings at the
// project root (the permission policy's host_settings).
var hostSettingFiles = []string{".claude/settings*.json", ".codex/hooks.json", ".codex/config.toml", ".mcp.json"}

// loopxWrites reports whether rel (slash, under .loopx/) is a file loopx
// itself writes while a round runs, which an agent's loopx commands change
// legitimately: the store, its lock, backup and revision marker (state.*,
// tamper-evident on their own: hash chain, anchor), the decision log, its inputs and bundles (append-only,
// content-addressed), the denial spool, the round prompts and the read
// model (verified against the store by VerifyReadModel). Everything else
// under .loopx/ (the spec cache, the installed-hooks record, the instance
// id, any file an agent adds) is compared by content.
func loopxWrites(rel string) bool {
	r := strings.TrimPrefix(rel, StateDirName+"/")
	base := filepath.Base(r)
	switch {
	case !strings.Contains(r, "/") && (strings.HasPrefix(base, "state.") || strings.HasSuffix(base, ".lock") ||
		strings.HasPrefix(base, LogFileName) || strings.HasPrefix(base, ".") && strings.HasSuffix(base, ".tmp")):
		return true
	case strings.HasPrefix(r, declog.InputsDirName+"/"), strings.HasPrefix(r, declog.BundlesDirName+"/"),
		strings.HasPrefix(r, SpoolDir+"/"), strings.HasPrefix(r, "rounds/"), r == "cache/readmodel.json",
		strings.HasPrefix(r, "cache/") && strings.HasPrefix(base, ".") && strings.Contains(base, ".tmp"):
		return true
	}
	return false
}

// contentSig is a file's signature by content: mode bits, and the sha256
// of its bytes (of its target for a symlink).
func contentSig(p string) (fileSig, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return fileSig{}, false
	}
	sig := fileSig{size: fi.Size(), mtime: int64(fi.Mode())}
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, _ := os.Readlink(p)
		sig.sum = sha256.Sum256([]byte("symlink:" + t))
		return sig, true
	}
	if !fi.Mode().IsRegular() {
		sig.sum = sha256.Sum256([]byte("special:" + fi.Mode().String()))
		return sig, true
	}
	f, err := os.Open(p)
	if err != nil {
		sig.sum = sha256.Sum256([]byte("unreadable:" + err.Error()))
		return sig, true
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		sig.sum = sha256.Sum256([]byte("unreadable:" + err.Error()))
		return sig, true
	}
	copy(sig.sum[:], h.Sum(nil))
	return sig, true
}

// hashTree adds every file under dir (by content) to out under key(path);
// skip, when set, leaves files out. A missing dir adds nothing.
func hashTree(out map[string]fileSig, dir string, key func(string) string, skip func(string) bool) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		k := key(p)
		if skip != nil && skip(k) {
			return nil
		}
		if sig, ok := contentSig(p); ok {
			out[k] = sig
		}
		return nil
	})
}

// relKey keys path p relative to the root (slash), or absolute when it lies
// outside.
func (e *Engine) relKey(p string) string {
	rel, err := filepath.Rel(e.root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

// gitDirs returns git's common directory and the work tree's git
// directory, absolute, or ok false when the root is not in a git work
// tree.
func (e *Engine) gitDirs() (common, dir, prefix string, ok bool) {
	out, err := e.git("rev-parse", "--is-inside-work-tree", "--path-format=absolute", "--git-common-dir", "--git-dir", "--show-prefix")
	if err != nil {
		return "", "", "", false
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 3 || lines[0] != "true" {
		return "", "", "", false
	}
	if len(lines) > 3 {
		prefix = lines[3]
	}
	return lines[1], lines[2], prefix, true
}

// git runs git in the root with the options that keep it from running code
// a repository configures (fsmonitor) and from trusting caches.
func (e *Engine) git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false"}, args...)...)
	cmd.Dir = e.root
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// treeState scans the project (see the top of this file).
func (e *Engine) treeState() treeScan {
	s := treeScan{sigs: map[string]fileSig{}}
	key := e.relKey
	hashTree(s.sigs, e.SpecDir(), key, nil)
	hashTree(s.sigs, e.StateDir(), key, loopxWrites)
	for _, g := range hostSettingFiles {
		ms, _ := filepath.Glob(filepath.Join(e.root, filepath.FromSlash(g)))
		for _, m := range ms {
			if sig, ok := contentSig(m); ok {
				s.sigs[key(m)] = sig
			}
		}
	}
	common, dir, prefix, inGit := e.gitDirs()
	if !inGit {
		if _, err := os.Stat(filepath.Join(e.root, ".git")); err == nil {
			s.incomplete = "the project has a .git but git cannot read it (is git installed?)"
		}
		if fi, err := os.Stat(filepath.Join(e.root, ".git")); err == nil && fi.IsDir() {
			common, dir = filepath.Join(e.root, ".git"), filepath.Join(e.root, ".git")
		}
	}
	if common != "" {
		hashTree(s.sigs, filepath.Join(common, "hooks"), key, nil)
		for _, f := range []string{filepath.Join(common, "config"), filepath.Join(common, "info", "exclude"),
			filepath.Join(dir, "config.worktree")} {
			if sig, ok := contentSig(f); ok {
				s.sigs[key(f)] = sig
			}
		}
	}
	if inGit {
		e.gitChanges(&s, prefix)
	} else if s.incomplete == "" {
		e.walkChanges(&s)
	}
	return s
}

// gitChanges adds what `git status --porcelain -z` lists under the root
// (every untracked file, no rename pairing) by content.
func (e *Engine) gitChanges(s *treeScan, prefix string) {
	out, err := e.git("status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=none", "--", ".")
	if err != nil {
		s.incomplete = err.Error()
		return
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) < 4 {
			continue
		}
		code, p := rec[:2], rec[3:]
		rel := strings.TrimPrefix(p, prefix)
		if rel == StateDirName || strings.HasPrefix(rel, StateDirName+"/") || strings.HasPrefix(rel, SpecDirName+"/") {
			continue // compared by content above
		}
		sig, ok := contentSig(filepath.Join(e.root, filepath.FromSlash(rel)))
		if !ok {
			sig.sum = sha256.Sum256([]byte("missing"))
		}
		sig.sum = sha256.Sum256(append([]byte(code), sig.sum[:]...))
		s.sigs[rel] = sig
	}
}

// walkChanges adds the files outside loopx/, .loopx/ and .git/ by size and
// modification time, at most Options.MaxScanFiles of them: one more makes
// the scan incomplete.
func (e *Engine) walkChanges(s *treeScan) {
	n := 0
	_ = filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != e.root && (p == e.SpecDir() || p == e.StateDir() || d.Name() == ".git" && filepath.Dir(p) == e.root) {
				return filepath.SkipDir
			}
			return nil
		}
		rel := e.relKey(p)
		if _, ok := s.sigs[rel]; ok {
			return nil // a host setting, compared by content
		}
		if n++; n > e.scanCap {
			s.incomplete = fmt.Sprintf("the work tree holds more than %d files outside loopx/ and .loopx/ and is not in git: loopx cannot see everything an agent command changes (put it in git, or make it smaller)", e.scanCap)
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err == nil {
			s.sigs[rel] = fileSig{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		}
		return nil
	})
}

// changedPaths lists the paths added, removed or modified between two
// scans, sorted.
func changedPaths(before, after treeScan) []string {
	var out []string
	for p, s := range after.sigs {
		if b, ok := before.sigs[p]; !ok || b != s {
			out = append(out, p)
		}
	}
	for p := range before.sigs {
		if _, ok := after.sigs[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Incomplete says why the scan could not see every change ("" when it
// could); it makes treeScan a runloop.Scan.
func (s treeScan) Incomplete() string { return s.incomplete }
