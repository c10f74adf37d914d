// Package scaffold makes a directory a loopx project (`loopx init`): it
// scaffolds the spec loopx/loopx.cue from flags and presets, creates the
// state directory .loopx/ with an empty store, and keeps .loopx/ out of
// git; and it finds a project's root from inside it (FindRoot). The first
// adoption, which needs the engine, is the caller's hook.
package scaffold

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/atomicfile"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/presets"
	"github.com/loopx-dev/loopx/specs"
)

// maxIgnoreBytes bounds the .gitignore init reads to append a line.
const maxIgnoreBytes = 16 << 20

// The project layout: the spec directory (the rules, under version
// control) and the state directory (loopx's local state, git-ignored), at
// the project root.
const (
	SpecDirName  = "loopx"
	StateDirName = ".loopx"
)

// Options configure Init (`loopx init`).
type Options struct {
	// Dir is the directory to make a project root.
	Dir string
	// Preset, Goal, Objective, Agent and Host fill the scaffolded spec.
	Preset, Goal, Objective, Agent, Host string
	// Force overwrites an existing loopx/loopx.cue.
	Force bool
	// Demo marks the project as one `loopx demo` created (records.Project):
	// the gate decision accepts the demo's own answers (channel "demo")
	// there and nowhere else. No command line flag sets it.
	Demo bool
	// Now is the clock the new store's first commits are stamped with (the
	// first adoption's time); nil means time.Now. The CLI passes its one
	// clock (LOOPX_NOW in test builds).
	Now func() time.Time
	// StateHome is the state directory the new project's anchor directory
	// is made under (engine.Options.StateHome); "" means the environment's.
	StateHome string
}

// Result says what Init did: the project root and spec path (absolute),
// whether the spec was written, and whether .gitignore gained .loopx/.
type Result struct {
	Root      string `json:"root"`
	Spec      string `json:"spec"`
	Created   bool   `json:"created"`
	GitIgnore bool   `json:"gitignore"`
}

// Adopt records the project's rules (loopx/ as Init leaves it) in the new
// store s as the first adoption, unless s holds adopted rules already;
// root is the project root (absolute).
type Adopt func(root string, s *kernel.Store) error

// Init scaffolds loopx/loopx.cue (unless it exists), creates .loopx/ with
// an empty store, calls adopt on it (the first adoption), and
// adds .loopx/ to .gitignore when dir is inside a git repository. It works
// outside git too. Errors: errs.Usage for an unknown preset, a preset
// without a goal or a goal without an objective; the scaffold's spec
// errors; adopt's error; I/O and store errors.
func Init(o Options, adopt Adopt) (Result, error) {
	var res Result
	root, err := filepath.Abs(o.Dir)
	if err != nil {
		return res, err
	}
	res.Root = root
	if o.Preset != "" {
		if _, ok := presets.Source(o.Preset); !ok {
			return res, errs.Usagef("unknown_preset", "unknown preset %q (known: %s)", o.Preset, strings.Join(presets.Names(), ", "))
		}
	}
	if o.Preset != "" && o.Goal == "" {
		return res, errs.Usagef("preset_needs_goal", "--preset applies to a goal: give --goal ID --objective TEXT too")
	}
	if o.Goal != "" && o.Objective == "" {
		return res, errs.Usagef("missing_objective", "--goal needs --objective TEXT (what the goal is for, in one sentence)")
	}
	if o.Agent != "" && o.Host == "" {
		o.Host = "shell"
	}
	specPath := filepath.Join(root, SpecDirName, "loopx.cue")
	res.Spec = specPath
	if _, err := os.Stat(specPath); err != nil || o.Force {
		// root is the user's (named on the command line): made as named;
		// everything below it is made without following a link.
		if err := os.MkdirAll(root, 0o755); err != nil {
			return res, err
		}
		if err := nofollow.MkdirAll(root, SpecDirName, 0o755); err != nil {
			return res, linkRefused(err)
		}
		src := specs.Scaffold(specs.ScaffoldOptions{Project: filepath.Base(root), Goal: o.Goal, Objective: o.Objective,
			Agent: o.Agent, Host: o.Host, Preset: o.Preset})
		// Never leave a spec that does not vet: bad flags (an id with
		// spaces, an unknown host) are reported before anything is
		// written. Evaluated as the file it will be, the load below does
		// not evaluate it again.
		if _, err := specs.LoadFiles(filepath.Dir(specPath), map[string][]byte{"loopx.cue": src}); err != nil {
			return res, err
		}
		if err := atomicfile.WriteBelow(root, filepath.Join(SpecDirName, "loopx.cue"), src); err != nil {
			return res, linkRefused(err)
		}
		res.Created = true
	}
	if _, err := specs.Load(filepath.Dir(specPath)); err != nil {
		return res, err
	}
	state := filepath.Join(root, StateDirName)
	// .loopx/ is made here, never through a link (the store would follow one).
	if err := nofollow.MkdirAll(root, StateDirName, 0o755); err != nil {
		return res, linkRefused(err)
	}
	ko := kernel.Options{Now: o.Now}
	if o.StateHome != "" {
		if ko.AnchorDir, err = anchor.DirIn(o.StateHome, root); err != nil {
			return res, err
		}
	}
	s, err := kernel.Open(state, ko)
	if err != nil {
		return res, err
	}
	if o.Demo {
		if err := s.Update(func(tx *kernel.Tx) error { return tx.PutProject(records.Project{Demo: true}) }); err != nil {
			s.Close()
			return res, err
		}
	}
	// The first adoption: loopx/ as init leaves it becomes the
	// rules in effect, so that a later edit is judged against it.
	if err := adopt(root, s); err != nil {
		s.Close()
		return res, err
	}
	if err := s.Close(); err != nil {
		return res, err
	}
	if gitRoot := findGit(root); gitRoot != "" {
		added, err := ensureIgnored(filepath.Join(gitRoot, ".gitignore"), relSlash(gitRoot, state)+"/")
		if err != nil {
			return res, linkRefused(err)
		}
		res.GitIgnore = added
	}
	return res, nil
}

// relSlash is p relative to base with slashes (p itself when it has none).
func relSlash(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// findGit is the nearest directory from dir up that holds .git ("" when
// none does).
func findGit(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// ensureIgnored appends line to a .gitignore unless an equivalent line is there.
func ensureIgnored(path, line string) (bool, error) {
	f, err := regularfile.Open(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	var had []byte
	if err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			l := strings.TrimSpace(sc.Text())
			if l == line || l == strings.TrimSuffix(line, "/") || l == "/"+line {
				f.Close()
				return false, nil
			}
		}
		f.Close()
		had, _ = regularfile.ReadFile(path, maxIgnoreBytes)
	}
	if len(had) > 0 && had[len(had)-1] != '\n' {
		had = append(had, '\n')
	}
	had = append(had, []byte(fmt.Sprintf("# loopx local state\n%s\n", line))...)
	// Replaced in its directory (the repository's root): a link at
	// .gitignore is replaced, never written through. It keeps its mode
	// (a new one is 0644, as git and editors make it): a .gitignore only
	// its owner can read hides it from everyone else working in the tree.
	perm := os.FileMode(0o644)
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	dir, name := filepath.Dir(path), filepath.Base(path)
	if err := nofollow.Replace(dir, name, had, perm); err != nil {
		return true, err
	}
	f, err = nofollow.OpenFile(dir, name, os.O_RDONLY, 0)
	if err != nil {
		return true, err
	}
	defer f.Close()
	return true, f.Chmod(perm) // the mode it had, whatever the umask
}

// linkRefused is err as errs.No link_refused, naming the link, when it is
// a link found where init writes (nofollow.ErrLink); else err. No store
// takes the event yet: init fails saying what it found.
func linkRefused(err error) error {
	var le *nofollow.LinkError
	if !errors.As(err, &le) {
		return err
	}
	return errs.New(errs.No, "link_refused", "loopx init: "+le.Error()+"; remove the link and run loopx init again")
}
