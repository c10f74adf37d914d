package trust

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
)

// What the agent changed (design §16, README "Trust model"). `loopx run`
// scans the project before and after the agent command:
//   - the protected files, always and uncapped, by content (sha256, mode,
//     symlink target): loopx/ (every file, node_modules and dotfiles
//     included: whatever the policy loader could read is watched), .loopx/
//     except the files loopx itself writes while a round runs (see
//     scaffold.LoopxWrites), git's hooks, config and info/exclude, and the agent
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

// Scanner scans a project for what an agent command changed.
type Scanner struct {
	// Root is the project root (absolute).
	Root string
	// SpecDir and StateDir are the names of the spec and state directories
	// at Root ("loopx", ".loopx").
	SpecDir, StateDir string
	// Cap caps the walk of a work tree outside git (0 = MaxScanFiles);
	// reaching it makes the scan incomplete.
	Cap int
	// Own reports whether rel (slash, relative to Root, under StateDir) is
	// a file loopx itself writes while a round runs, which the scan leaves
	// out; nil leaves out none.
	Own func(rel string) bool
}

// fileSig is what tells a file changed: size and modification time (the
// walk outside git), or mode and content hash (protected files and what
// git status lists).
type fileSig struct {
	size  int64
	mtime int64
	// sum is the content hash (with git's status code for what git status
	// lists), whose change is seen even when size and mtime are restored.
	sum [32]byte
	// prot marks a file of the protected set (loopx/, .loopx/, git's hooks
	// and config, the hosts' settings), hashed in full by every scan.
	prot bool
}

// Scan is one scan of the project: path (slash, relative to the root;
// outside the root, absolute) to signature.
type Scan struct {
	sigs map[string]fileSig
	// incomplete says why the scan could not see every change ("" when it
	// could): the walk reached MaxScanFiles, git status failed.
	incomplete string
}

// hostSettingFiles are the agent hosts' hook and tool settings at the
// project root (the permission policy's host_settings).
var hostSettingFiles = []string{".claude/settings*.json", ".codex/hooks.json", ".codex/config.toml", ".mcp.json"}

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
func (sc Scanner) relKey(p string) string {
	rel, err := filepath.Rel(sc.Root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

// gitDirs returns git's common directory and the work tree's git
// directory, absolute, or ok false when the root is not in a git work
// tree.
func (sc Scanner) gitDirs() (common, dir, prefix string, ok bool) {
	out, err := sc.git("rev-parse", "--is-inside-work-tree", "--path-format=absolute", "--git-common-dir", "--git-dir", "--show-prefix")
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
func (sc Scanner) git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false"}, args...)...)
	cmd.Dir = sc.Root
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Scan scans the project (see the top of this file). It never fails: what
// it cannot see makes it incomplete (Scan.Incomplete).
func (sc Scanner) Scan() Scan {
	s := Scan{sigs: map[string]fileSig{}}
	key := sc.relKey
	hashTree(s.sigs, sc.specPath(), key, nil)
	hashTree(s.sigs, sc.statePath(), key, sc.Own)
	for _, g := range hostSettingFiles {
		ms, _ := filepath.Glob(filepath.Join(sc.Root, filepath.FromSlash(g)))
		for _, m := range ms {
			if sig, ok := contentSig(m); ok {
				s.sigs[key(m)] = sig
			}
		}
	}
	common, dir, prefix, inGit := sc.gitDirs()
	if !inGit {
		if _, err := os.Stat(filepath.Join(sc.Root, ".git")); err == nil {
			s.incomplete = "the project has a .git but git cannot read it (is git installed?)"
		}
		if fi, err := os.Stat(filepath.Join(sc.Root, ".git")); err == nil && fi.IsDir() {
			common, dir = filepath.Join(sc.Root, ".git"), filepath.Join(sc.Root, ".git")
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
	for k, sig := range s.sigs {
		sig.prot = true
		s.sigs[k] = sig
	}
	if inGit {
		sc.gitChanges(&s, prefix)
	} else if s.incomplete == "" {
		sc.walkChanges(&s)
	}
	return s
}

// gitChanges adds what `git status --porcelain -z` lists under the root
// (every untracked file, no rename pairing) by content.
func (sc Scanner) gitChanges(s *Scan, prefix string) {
	out, err := sc.git("status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=none", "--", ".")
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
		if rel == sc.StateDir || strings.HasPrefix(rel, sc.StateDir+"/") || strings.HasPrefix(rel, sc.SpecDir+"/") {
			continue // compared by content above
		}
		sig, ok := contentSig(filepath.Join(sc.Root, filepath.FromSlash(rel)))
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
func (sc Scanner) walkChanges(s *Scan) {
	n := 0
	_ = filepath.WalkDir(sc.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != sc.Root && (p == sc.specPath() || p == sc.statePath() || d.Name() == ".git" && filepath.Dir(p) == sc.Root) {
				return filepath.SkipDir
			}
			return nil
		}
		rel := sc.relKey(p)
		if _, ok := s.sigs[rel]; ok {
			return nil // a host setting, compared by content
		}
		if n++; n > sc.cap() {
			s.incomplete = fmt.Sprintf("the work tree holds more than %d files outside loopx/ and .loopx/ and is not in git: loopx cannot see everything an agent command changes (put it in git, or make it smaller)", sc.cap())
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err == nil {
			s.sigs[rel] = fileSig{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		}
		return nil
	})
}

// Changed lists the paths added, removed or modified between two scans,
// sorted.
func Changed(before, after Scan) []string {
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

// ChangedProtected is Changed over the protected set alone (loopx/,
// .loopx/, git's hooks and config, the hosts' settings), which every scan
// hashes in full before it looks at anything else and uncapped: what it
// lists holds even when a scan is incomplete (the walk reached its cap).
func ChangedProtected(before, after Scan) []string {
	var out []string
	for _, p := range Changed(before, after) {
		if before.sigs[p].prot || after.sigs[p].prot {
			out = append(out, p)
		}
	}
	return out
}

// Incomplete says why the scan could not see every change ("" when it
// could): the walk reached the cap, git status failed.
func (s Scan) Incomplete() string { return s.incomplete }

func (sc Scanner) specPath() string  { return filepath.Join(sc.Root, sc.SpecDir) }
func (sc Scanner) statePath() string { return filepath.Join(sc.Root, sc.StateDir) }

func (sc Scanner) cap() int {
	if sc.Cap <= 0 {
		return MaxScanFiles
	}
	return sc.Cap
}
