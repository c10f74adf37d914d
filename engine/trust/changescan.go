package trust

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/loopx-dev/loopx/internal/confine"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/internal/safegit"
)

// What the agent changed (docs/trust.md "Trust model"). `loopx run` scans the
// project before and after the agent command:
//   - the protected files (Scanner.Protected: loopx/, .loopx/ but the files
//     loopx itself writes while a round runs, git's hooks, config and
//     info/, the hosts' settings, the files that make the human's next
//     command run code, in the project and in the home), always and
//     uncapped, by content (sha256, mode, symlink target), with what the
//     git configuration names (ReadGitConfig: the files in the hooks
//     directory core.hooksPath names, ignored ones too, and the included
//     configuration files); of a host's state file (~/.claude.json),
//     only the parts that run code (Scanner.HostParts: its MCP servers);
//   - inside git, every file git tracks (whatever the index says of it:
//     assume-unchanged and skip-worktree are not trusted) and every
//     untracked file, each by its content, which loopx hashes itself, and
//     by the blob the index stages for it; every ignored file and every
//     file of a submodule's work tree by its stat (statSig), protected
//     names among them by content; and HEAD,
//     every ref and the pseudo-refs (MERGE_HEAD, FETCH_HEAD, …), whose
//     moves are read as the paths they bring in (Changed);
//   - outside git, a walk of at most MaxScanFiles files by size and
//     modification time; reaching the cap makes the scan incomplete, and an
//     incomplete scan fails the round (Run).
//
// loopx never runs code of the project's here: git runs as package safegit says
// (no global or system configuration, no hooks, no fsmonitor, no
// attributes) and only commands that never read a file's content through a
// filter; contents are compared by loopx.

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
	// Protected is the protected set (the permission policy's, read from
	// the policy bundle): globs relative to the project (".git/…" relative
	// to git's directory) and to the home directory.
	Protected Protected
	// Home is the user's home directory (absolute; "" = none): the
	// protected set's home globs are hashed under it.
	Home string
	// LoopxState is loopx's state directory ($XDG_STATE_HOME/loopx,
	// absolute; "" = none). When it lies inside Root, its files are left
	// out as .loopx/'s are: loopx itself writes its anchors while a round
	// runs, and the store's chain governs them.
	LoopxState string
	// HostParts are the host state files (relative to Home) the change
	// check compares only in part, and their parts: key paths into the
	// file's JSON object ("*" any one key; the protected set's
	// host_state_compared).
	HostParts map[string][][]string
	// Git is git's executable (absolute; "" = safegit.Path()).
	Git string
	// Cache keeps content hashes between scans (nil = the process's
	// shared cache, SharedHashes).
	Cache *HashCache
	// configured are the globs of what the git configuration names
	// (GitConfig.Globs), read by each scan.
	configured []string
}

// HomeDir is the user's home directory ($HOME, absolute), or "" when
// there is none.
func HomeDir() string {
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return ""
	}
	return home
}

// Protected is the protected set: doublestar globs of the files no agent
// may write, relative to the project root (Project; a glob starting with
// "**/" is hashed at the root and matched anywhere, one starting with
// ".git/" is relative to git's directories) and to the home directory
// (Home).
type Protected struct {
	Project, Home []string
}

// fileSig is what tells a file changed: size and modification time (the
// walk outside git), or mode and content hash (protected files and what
// git lists).
// LargeFileBytes is the size above which a file is compared by what the
// kernel says of it (device, inode, size, mode, modification and change
// times) instead of by its content: 64 MiB.
const LargeFileBytes = 64 << 20

type fileSig struct {
	size  int64
	mtime int64
	// sum is the content hash (with the blob the index stages, for what
	// git tracks), whose change is seen even when size and mtime are
	// restored.
	sum [32]byte
	// prot marks a file of the protected set, hashed in full by every scan.
	prot bool
}

// Scan is one scan of the project: path (slash, relative to the root;
// outside the root, absolute) to signature, and git's refs.
type Scan struct {
	sigs map[string]fileSig
	// incomplete says why the scan could not see every change ("" when it
	// could): the walk reached MaxScanFiles, git failed.
	incomplete string
	// refs are HEAD, every ref and the pseudo-refs, name to object id
	// (nil outside git).
	refs map[string]string
	git  safegit.Git
	// top is the git work tree's top directory, common git's common
	// directory, dir the work tree's git directory (absolute).
	top, common, dir string
	sc               Scanner
}

// contentSig is a file's signature by content: mode bits, and the sha256
// of its bytes (of its target for a symlink); cache, when set, gives the
// hash of a file whose stat is unchanged since it was hashed.
func contentSig(p string, cache *HashCache) (fileSig, bool) {
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
	if sum, ok := cache.get(p, fi); ok {
		sig.sum = sum
		return sig, true
	}
	if k, ok := keyOf(fi); ok && fi.Size() > LargeFileBytes {
		// Reading it whole would let one `truncate -s 1T` stall the scan
		// for hours; any write to it changes its change time, which no
		// unprivileged process can set back.
		sig.sum = sha256.Sum256(fmt.Appendf(nil, "stat:%d:%d:%d:%v:%d:%d", k.dev, k.ino, k.size, k.mode, k.mtimeNs, k.ctimeNs))
		return sig, true
	}
	f, err := regularfile.Open(p)
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
	cache.put(p, fi, sig.sum)
	return sig, true
}

// hashTree adds every file under dir (by content) to out under key(path);
// skip, when set, leaves files out. A missing dir adds nothing.
func hashTree(out map[string]fileSig, dir string, key func(string) string, skip func(string) bool, cache *HashCache) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		k := key(p)
		if skip != nil && skip(k) {
			return nil
		}
		if sig, ok := contentSig(p, cache); ok {
			out[k] = sig
		}
		return nil
	})
}

// hashHooksDir adds the entries directly in dir (git runs <dir>/<hook>),
// by content, ignored ones too: below it, inside the project, what git
// lists or ignores is compared as the protected names it holds
// (protectedName). It returns false when dir holds more than the cap's
// entries (then none is added).
func (sc Scanner) hashHooksDir(out map[string]fileSig, dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	if len(entries) > sc.cap() {
		return false
	}
	for _, d := range entries {
		p := filepath.Join(dir, d.Name())
		if k := sc.relKey(p); !d.IsDir() && !sc.ownFile(k) {
			if sig, ok := contentSig(p, sc.cache()); ok {
				out[k] = sig
			}
		}
	}
	return true
}

// hashGlob adds every file under base matching glob (slash, relative to
// base) to out by content. The walk starts at the glob's literal leading
// directories and follows no symlink.
func hashGlob(out map[string]fileSig, base, glob string, key func(string) string, skip func(string) bool, cache *HashCache) {
	segs := strings.Split(glob, "/")
	n := 0
	for n < len(segs)-1 && !strings.ContainsAny(segs[n], `*?[{\`) {
		n++
	}
	start := filepath.Join(base, filepath.FromSlash(strings.Join(segs[:n], "/")))
	if n == len(segs)-1 && !strings.ContainsAny(segs[n], `*?[{\`) { // a literal file
		if sig, ok := contentSig(filepath.Join(start, segs[n]), cache); ok && (skip == nil || !skip(key(filepath.Join(start, segs[n])))) {
			out[key(filepath.Join(start, segs[n]))] = sig
		}
		return
	}
	_ = filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(base, p)
		if err != nil || !doublestar.MatchUnvalidated(glob, filepath.ToSlash(rel)) {
			return nil
		}
		k := key(p)
		if skip != nil && skip(k) {
			return nil
		}
		if sig, ok := contentSig(p, cache); ok {
			out[k] = sig
		}
		return nil
	})
}

// ownFile reports whether k (a scan's key) is a file loopx itself writes
// under the state directory while a round runs (Scanner.Own).
func (sc Scanner) ownFile(k string) bool {
	return sc.Own != nil && (k == sc.StateDir || strings.HasPrefix(k, sc.StateDir+"/")) && sc.Own(k)
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

// cache is the scanner's hash cache.
func (sc Scanner) cache() *HashCache {
	if sc.Cache != nil {
		return sc.Cache
	}
	return SharedHashes
}

// lockedGit is git run in the root under the locked configuration
// (safegit).
func (sc Scanner) lockedGit() safegit.Git {
	return safegit.Git{Path: sc.Git, Dir: sc.Root}
}

// gitDirs returns git's common directory, the work tree's git directory
// and its top directory, absolute, and the root's prefix in the work tree,
// or ok false when the root is not in a git work tree.
func (sc Scanner) gitDirs(g safegit.Git) (common, dir, top, prefix string, ok bool) {
	out, err := g.Run("rev-parse", "--is-inside-work-tree", "--path-format=absolute", "--git-common-dir", "--git-dir", "--show-toplevel", "--show-prefix")
	if err != nil {
		return "", "", "", "", false
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 4 || lines[0] != "true" {
		return "", "", "", "", false
	}
	if len(lines) > 4 {
		prefix = lines[4]
	}
	return lines[1], lines[2], lines[3], prefix, true
}

// Scan scans the project (see the top of this file). It never fails: what
// it cannot see makes it incomplete (Scan.Incomplete).
func (sc Scanner) Scan() Scan {
	g := sc.lockedGit()
	s := Scan{sigs: map[string]fileSig{}, git: g, sc: sc}
	key := sc.relKey
	own := sc.ownFile
	hashTree(s.sigs, sc.specPath(), key, nil, sc.cache())
	hashTree(s.sigs, sc.statePath(), key, own, sc.cache())
	common, dir, top, _, inGit := sc.gitDirs(g)
	if !inGit {
		if _, err := os.Stat(filepath.Join(sc.Root, ".git")); err == nil {
			s.incomplete = "the project has a .git but git cannot read it (is git installed?)"
		}
		if fi, err := os.Stat(filepath.Join(sc.Root, ".git")); err == nil && fi.IsDir() {
			common, dir = filepath.Join(sc.Root, ".git"), filepath.Join(sc.Root, ".git")
		}
	}
	for _, glob := range sc.Protected.Project {
		switch {
		case strings.HasPrefix(glob, ".git/"):
			for _, d := range []string{common, dir} {
				if d != "" {
					hashGlob(s.sigs, d, strings.TrimPrefix(glob, ".git/"), key, nil, sc.cache())
				}
			}
		case strings.HasPrefix(glob, "**/"): // at the root (elsewhere: what git lists)
			hashGlob(s.sigs, sc.Root, strings.TrimPrefix(glob, "**/"), key, own, sc.cache())
		default:
			hashGlob(s.sigs, sc.Root, glob, key, own, sc.cache())
		}
	}
	if sc.Home != "" {
		for _, glob := range sc.Protected.Home {
			hashGlob(s.sigs, sc.Home, glob, key, nil, sc.cache())
		}
		for file, parts := range sc.HostParts {
			p := filepath.Join(sc.Home, filepath.FromSlash(file))
			if sig, ok := partsSig(p, parts, sc.cache()); ok {
				s.sigs[key(p)] = sig
			}
		}
	}
	// What the git configuration names: the hooks directories (an
	// ignored one too) and the included configuration files.
	gc := ReadGitConfig(sc.Root)
	for _, d := range gc.HooksDirs {
		if !sc.hashHooksDir(s.sigs, d) {
			s.incomplete = fmt.Sprintf("the hooks directory git's configuration names (%s) holds more than %d entries", d, sc.cap())
		}
	}
	for _, f := range gc.Included {
		if sig, ok := contentSig(f, sc.cache()); ok {
			s.sigs[key(f)] = sig
		}
	}
	s.sc.configured = gc.Globs(sc.relKey)
	sc.configured = s.sc.configured
	for k, sig := range s.sigs {
		sig.prot = true
		s.sigs[k] = sig
	}
	if inGit {
		s.top, s.common, s.dir = top, common, dir
		sc.gitChanges(&s)
		if s.incomplete == "" {
			s.refs, s.incomplete = readRefs(g, dir)
		}
	} else if s.incomplete == "" {
		sc.walkChanges(&s)
	}
	return s
}

// gitChanges adds, under the root, every file the index lists (with the
// blob it stages) and every untracked file git does not ignore, each by
// content; every file git ignores, by content when it is a .gitignore or a
// protected name (sub/.envrc in an ignored sub/), else by what the kernel
// says of it (statSig: no content is read, so a large ignored tree such as
// node_modules costs one stat a file); and every file of a submodule's
// work tree (gitlinks in the index), by stat too, with its embedded git
// directory's hooks, config and info/. Git reads no file's content here
// (ls-files), and its index flags (assume-unchanged, skip-worktree) do not
// matter.
func (sc Scanner) gitChanges(s *Scan) {
	staged, err := s.git.Run("ls-files", "-z", "--cached", "--stage", "--", ".")
	if err != nil {
		s.incomplete = err.Error()
		return
	}
	untracked, err := s.git.Run("ls-files", "-z", "--others", "--exclude-standard", "--", ".")
	if err != nil {
		s.incomplete = err.Error()
		return
	}
	ignored, err := s.git.Run("ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--", ".")
	if err != nil {
		s.incomplete = err.Error()
		return
	}
	lr := sc.loopxStateRel()
	skip := func(rel string) bool {
		return rel == "" || rel == sc.StateDir || strings.HasPrefix(rel, sc.StateDir+"/") || strings.HasPrefix(rel, sc.SpecDir+"/") ||
			lr != "" && (rel == lr || strings.HasPrefix(rel, lr+"/"))
	}
	add := func(rel, stage string) {
		if skip(rel) {
			return // compared by content above
		}
		if prev, ok := s.sigs[rel]; ok && prev.prot && stage == "" {
			return // hashed with the protected set
		}
		sig, ok := contentSig(filepath.Join(sc.Root, filepath.FromSlash(rel)), sc.cache())
		if !ok {
			sig.sum = sha256.Sum256([]byte("missing"))
		}
		if stage != "" {
			sig.sum = sha256.Sum256(append([]byte(stage+"\x00"), sig.sum[:]...))
		}
		sig.prot = sc.protectedName(rel)
		s.sigs[rel] = sig
	}
	var submodules []string
	for _, rec := range strings.Split(string(staged), "\x00") {
		// <mode> <object> <stage>\t<path>
		meta, p, ok := strings.Cut(rec, "\t")
		if ok {
			add(p, meta)
			if strings.HasPrefix(meta, "160000 ") {
				submodules = append(submodules, p)
			}
		}
	}
	for _, p := range strings.Split(string(untracked), "\x00") {
		add(p, "")
	}
	for _, p := range strings.Split(string(ignored), "\x00") {
		if path.Base(p) == ".gitignore" || sc.protectedName(p) {
			add(p, "")
		} else if !skip(p) {
			if _, ok := s.sigs[p]; !ok {
				s.sigs[p] = statSig(filepath.Join(sc.Root, filepath.FromSlash(p)))
			}
		}
	}
	for _, sub := range submodules {
		sc.submoduleChanges(s, sub)
	}
}

// submoduleChanges adds every file of the submodule work tree at rel
// (slash, relative to the root) by stat (statSig; a protected name by
// content), and of a git directory embedded in it (rel/.git/, nested ones
// too) its hooks, config and info/: git lists none of them in the
// superproject.
func (sc Scanner) submoduleChanges(s *Scan, rel string) {
	_ = filepath.WalkDir(filepath.Join(sc.Root, filepath.FromSlash(rel)), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				for _, g := range []string{"hooks/**", "config", "info/**"} {
					hashGlob(s.sigs, p, g, sc.relKey, nil, sc.cache())
				}
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		k := sc.relKey(p)
		if _, ok := s.sigs[k]; ok {
			return nil
		}
		if sc.protectedName(k) {
			if sig, ok := contentSig(p, sc.cache()); ok {
				sig.prot = true
				s.sigs[k] = sig
			}
			return nil
		}
		s.sigs[k] = statSig(p)
		return nil
	})
}

// statSig is a file's signature by what the kernel says of it (size,
// modification time; device, inode, mode and change time in sum): any
// write changes it, even one that restores the size and the modification
// time, and no content is read.
func statSig(p string) fileSig {
	fi, err := os.Lstat(p)
	if err != nil {
		return fileSig{sum: sha256.Sum256([]byte("missing"))}
	}
	k, ok := keyOf(fi)
	if !ok {
		return fileSig{size: fi.Size(), mtime: fi.ModTime().UnixNano(), sum: sha256.Sum256([]byte(fi.Mode().String()))}
	}
	return fileSig{size: k.size, mtime: k.mtimeNs, sum: sha256.Sum256(fmt.Appendf(nil, "%d %d %o %d", k.dev, k.ino, k.mode, k.ctimeNs))}
}

// protectedName reports whether rel (slash, relative to the root) matches
// a project glob of the protected set (lower-cased, as the policy
// compares).
func (sc Scanner) protectedName(rel string) bool {
	n := strings.ToLower(rel)
	for _, g := range append(sc.Protected.Project, sc.configured...) {
		if doublestar.MatchUnvalidated(g, n) {
			return true
		}
	}
	return n == strings.ToLower(sc.SpecDir) || strings.HasPrefix(n, strings.ToLower(sc.SpecDir)+"/") ||
		strings.HasPrefix(n, strings.ToLower(sc.StateDir)+"/")
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
			if p != sc.Root && (p == sc.specPath() || p == sc.statePath() || d.Name() == ".git" && filepath.Dir(p) == sc.Root ||
				sc.LoopxState != "" && p == filepath.Clean(sc.LoopxState)) {
				return filepath.SkipDir
			}
			return nil
		}
		rel := sc.relKey(p)
		if _, ok := s.sigs[rel]; ok {
			return nil // a protected file, compared by content
		}
		if n++; n > sc.cap() {
			s.incomplete = fmt.Sprintf("the work tree holds more than %d files outside loopx/ and .loopx/ and is not in git: loopx cannot see everything an agent command changes (put it in git, or make it smaller)", sc.cap())
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err == nil {
			s.sigs[rel] = fileSig{size: fi.Size(), mtime: fi.ModTime().UnixNano(), prot: sc.protectedName(rel)}
		}
		return nil
	})
}

// Changed lists the paths added, removed or modified between two scans,
// and those that the refs moved between them bring in (Committed), sorted.
// Errors: git could not read what a moved ref brings in.
func Changed(before, after Scan) ([]string, error) {
	seen := map[string]bool{}
	for p, s := range after.sigs {
		if b, ok := before.sigs[p]; !ok || b != s {
			seen[p] = true
		}
	}
	for p := range before.sigs {
		if _, ok := after.sigs[p]; !ok {
			seen[p] = true
		}
	}
	committed, err := Committed(before, after)
	for _, p := range committed {
		seen[p] = true
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, err
}

// ChangedProtected is Changed over the protected set alone (see Scanner.
// Protected), which every scan hashes in full before it looks at anything
// else and uncapped: what it lists holds even when a scan is incomplete
// (the walk reached its cap). A moved ref's paths are among them when git
// can read them.
func ChangedProtected(before, after Scan) []string {
	all, _ := Changed(before, after)
	var out []string
	for _, p := range all {
		if before.sigs[p].prot || after.sigs[p].prot || after.sc.protectedName(p) {
			out = append(out, p)
		}
	}
	return out
}

// Incomplete says why the scan could not see every change ("" when it
// could): the walk reached the cap, git failed.
func (s Scan) Incomplete() string { return s.incomplete }

// loopxStateRel is LoopxState relative to Root (slash), "" when it is not
// inside Root.
func (sc Scanner) loopxStateRel() string {
	if sc.LoopxState == "" {
		return ""
	}
	rel, err := filepath.Rel(sc.Root, sc.LoopxState)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return ""
	}
	return filepath.ToSlash(rel)
}

func (sc Scanner) specPath() string  { return filepath.Join(sc.Root, sc.SpecDir) }
func (sc Scanner) statePath() string { return filepath.Join(sc.Root, sc.StateDir) }

func (sc Scanner) cap() int {
	if sc.Cap <= 0 {
		return MaxScanFiles
	}
	return sc.Cap
}

// commondirPlaceholder is the content hash of the placeholder loopx run's
// sandbox puts where a git directory has no commondir.
var commondirPlaceholder = sha256.Sum256([]byte(confine.CommondirPlaceholder))

// ProtectedDigests are the files of the protected set this scan hashed
// outside loopx/ and .loopx/ (which adoption and the store's chain govern),
// each by a hex digest of its signature (content, mode, symlink target;
// of a host state file, the parts compared): what loopx run records as a
// round ends and compares as the next one starts (kernel.ProtectedSeen).
func (s Scan) ProtectedDigests() map[string]string {
	out := map[string]string{}
	spec, state := s.sc.SpecDir+"/", s.sc.StateDir+"/"
	for p, sig := range s.sigs {
		if !sig.prot || strings.HasPrefix(p, spec) || strings.HasPrefix(p, state) {
			continue
		}
		// An empty file is the same as none: it runs nothing, and loopx
		// run's sandbox puts empty read-only placeholders where protected
		// files do not exist, gone again after the round (a commondir's
		// holds "." instead: git refuses an empty one, and "." means what
		// none means). Emptying a file
		// that held something still shows (it leaves this map).
		if sig.size == 0 || (path.Base(p) == "commondir" && sig.sum == commondirPlaceholder) {
			continue
		}
		d := sha256.Sum256(fmt.Appendf(nil, "%d %d %x", sig.size, sig.mtime, sig.sum))
		out[p] = fmt.Sprintf("%x", d)
	}
	return out
}

// ChangedDigests lists, sorted, the files whose digest differs between
// seen and now (ProtectedDigests), added and removed ones included.
func ChangedDigests(seen, now map[string]string) []string {
	var out []string
	for p, d := range now {
		if seen[p] != d {
			out = append(out, p)
		}
	}
	for p := range seen {
		if _, ok := now[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
