package engine

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/presets"
	"github.com/loopx-dev/loopx/specs"
)

// InitOptions configure Init (`loopx init`).
type InitOptions struct {
	// Dir is the directory to make a project root.
	Dir string
	// Preset, Goal, Objective, Agent and Host fill the scaffolded spec.
	Preset, Goal, Objective, Agent, Host string
	// Force overwrites an existing loopx/loopx.cue.
	Force bool
	// Demo marks the project as one `loopx demo` created (kernel.Project):
	// the gate decision accepts the demo's own answers (channel "demo")
	// there and nowhere else. No command line flag sets it.
	Demo bool
	// Now is the clock the new store's first commits are stamped with (the
	// first adoption's time); nil means time.Now. The CLI passes its one
	// clock (LOOPX_NOW in test builds).
	Now func() time.Time
}

// InitResult says what Init did.
type InitResult struct {
	Root      string `json:"root"`
	Spec      string `json:"spec"`
	Created   bool   `json:"created"`
	GitIgnore bool   `json:"gitignore"`
}

// Init scaffolds loopx/loopx.cue (unless it exists), creates .loopx/ with
// an empty store, and adds .loopx/ to .gitignore when dir is inside a git
// repository. It works outside git too. Errors: errs.Usage for an unknown
// preset or a goal without an objective; the scaffold's spec errors.
func Init(o InitOptions) (InitResult, error) {
	var res InitResult
	root, err := filepath.Abs(o.Dir)
	if err != nil {
		return res, err
	}
	res.Root = root
	if o.Preset != "" {
		if _, ok := presets.Source(o.Preset); !ok {
			return res, Usagef("unknown_preset", "unknown preset %q (known: %s)", o.Preset, strings.Join(presets.Names(), ", "))
		}
	}
	if o.Preset != "" && o.Goal == "" {
		return res, Usagef("preset_needs_goal", "--preset applies to a goal: give --goal ID --objective TEXT too")
	}
	if o.Goal != "" && o.Objective == "" {
		return res, Usagef("missing_objective", "--goal needs --objective TEXT (what the goal is for, in one sentence)")
	}
	if o.Agent != "" && o.Host == "" {
		o.Host = "shell"
	}
	specPath := filepath.Join(root, SpecDirName, "loopx.cue")
	res.Spec = specPath
	if _, err := os.Stat(specPath); err != nil || o.Force {
		if err := os.MkdirAll(filepath.Dir(specPath), 0o755); err != nil {
			return res, err
		}
		src := specs.Scaffold(specs.ScaffoldOptions{Project: filepath.Base(root), Goal: o.Goal, Objective: o.Objective,
			Agent: o.Agent, Host: o.Host, Preset: o.Preset})
		if err := vetScaffold(src); err != nil { // never leave a spec that does not vet
			return res, err
		}
		if err := writeFileAtomic(specPath, src); err != nil {
			return res, err
		}
		res.Created = true
	}
	if _, err := specs.Load(filepath.Dir(specPath)); err != nil {
		return res, err
	}
	state := filepath.Join(root, StateDirName)
	s, err := kernel.Open(state, kernel.Options{Now: o.Now})
	if err != nil {
		return res, err
	}
	if o.Demo {
		if err := s.Update(func(tx *kernel.Tx) error { return tx.PutProject(kernel.Project{Demo: true}) }); err != nil {
			s.Close()
			return res, err
		}
	}
	// The first adoption (design §16): loopx/ as init leaves it becomes the
	// rules in effect, so that a later edit is judged against it.
	if err := adoptAtInit(root, s, o.Now); err != nil {
		s.Close()
		return res, err
	}
	if err := s.Close(); err != nil {
		return res, err
	}
	if gitRoot := findGit(root); gitRoot != "" {
		added, err := ensureIgnored(filepath.Join(gitRoot, ".gitignore"), relSlash(gitRoot, state)+"/")
		if err != nil {
			return res, err
		}
		res.GitIgnore = added
	}
	return res, nil
}

func relSlash(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

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
	f, err := os.Open(path)
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
		had, _ = os.ReadFile(path)
	}
	if len(had) > 0 && had[len(had)-1] != '\n' {
		had = append(had, '\n')
	}
	had = append(had, []byte(fmt.Sprintf("# loopx local state\n%s\n", line))...)
	return true, writeFileAtomic(path, had)
}

// writeFileAtomic writes data to a temp file beside path and renames it over.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// vetScaffold loads a scaffolded spec from a scratch directory, so that bad
// flags (an id with spaces, an unknown host) are reported before anything
// is written.
func vetScaffold(src []byte) error {
	tmp, err := os.MkdirTemp("", "loopx-init-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, SpecDirName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "loopx.cue"), src, 0o644); err != nil {
		return err
	}
	_, err = specs.Load(dir)
	return err
}

// adoptAtInit records loopx/ as the adopted rules in s when none are (a
// store kept by a second init keeps its adopted rules: an edit since is
// judged against them, as any other).
func adoptAtInit(root string, s *kernel.Store, now func() time.Time) error {
	have := false
	if err := s.View(func(tx *kernel.Tx) error {
		var err error
		_, have, err = tx.Rules()
		return err
	}); err != nil || have {
		return err
	}
	if now == nil {
		now = time.Now
	}
	e := &Engine{root: root, now: now}
	e.disk, e.diskErr = specs.Load(e.SpecDir())
	if e.diskErr != nil {
		return e.diskErr
	}
	r, err := e.diskRules()
	if err != nil {
		return err
	}
	return s.Update(func(tx *kernel.Tx) error {
		r.By, r.AdoptedAt = "loopx", tx.Now()
		return tx.PutRules(r)
	})
}
