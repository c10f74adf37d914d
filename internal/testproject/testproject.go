// Package testproject makes the loopx project a test works in: a fresh
// directory with a spec in loopx/, its own state directory (where the
// project's anchor directory goes, internal/anchor) and its own settable
// clock. A test passes them to what it drives as options — Root, StateHome
// and Clock.Now to engine.Options, Env to a command it starts — never
// through its own process's environment, so tests that own their projects
// can run in parallel (t.Parallel).
//
// Tests only: no loopx binary imports it.
package testproject

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Epoch is the instant every test clock starts at, 2026-11-29T10:00:00Z:
// the one the CLI scripts pin.
var Epoch = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// EpochText is Epoch in RFC 3339, the form the CLI's test clock takes.
const EpochText = "2026-11-29T10:00:00Z"

// SpecDir and SpecFile are where a project's spec is: <root>/loopx/loopx.cue
// (scaffold.SpecDirName; this package imports nothing of loopx's).
const (
	SpecDir  = "loopx"
	SpecFile = "loopx.cue"
)

// Clock is a test's settable clock: it reads Epoch until moved, and moves
// only when the test says (tests never sleep). Safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at Epoch.
func NewClock() *Clock { return &Clock{t: Epoch} }

// Now is the clock's instant (the signature of engine.Options.Now).
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d (back, for a negative d).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Text is the clock's instant in RFC 3339 (UTC), the form the CLI's test
// clock variable takes.
func (c *Clock) Text() string { return c.Now().UTC().Format(time.RFC3339) }

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Project is one test's project.
type Project struct {
	// Root is the project root: a fresh directory of the test's.
	Root string
	// StateHome is the project's own state directory, outside Root
	// (engine.Options.StateHome; XDG_STATE_HOME in Env).
	StateHome string
	// Clock is the project's clock, at Epoch when made.
	Clock *Clock
}

// New makes a project in fresh temporary directories of t with spec as
// loopx/loopx.cue (no spec file when spec is ""): its store is made by
// the first command or engine that writes (as after a hand-written spec),
// not here. The directories are removed when the test ends.
func New(t testing.TB, spec string) *Project {
	t.Helper()
	p := &Project{Root: t.TempDir(), StateHome: t.TempDir(), Clock: NewClock()}
	if spec != "" {
		p.WriteSpec(t, spec)
	}
	return p
}

// WriteSpec replaces loopx/loopx.cue with src.
func (p *Project) WriteSpec(t testing.TB, src string) {
	t.Helper()
	p.Write(t, filepath.Join(SpecDir, SpecFile), src)
}

// Write writes data to the file rel below Root, making its directories.
func (p *Project) Write(t testing.TB, rel, data string) {
	t.Helper()
	path := filepath.Join(p.Root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Path is rel below Root.
func (p *Project) Path(rel string) string { return filepath.Join(p.Root, rel) }

// Env is the environment a command started on this project needs on top
// of the inherited one: its state directory (XDG_STATE_HOME) and no
// project, round or agent inherited from the test's own environment. Each
// entry is KEY=VALUE, for exec.Cmd.Env. The caller adds the test clock's
// variable itself (EpochText, or Clock.Text): its name appears in one
// non-test source only, the CLI's one reader.
func (p *Project) Env() []string {
	return []string{
		"XDG_STATE_HOME=" + p.StateHome,
		"LOOPX_PROJECT=",
		"LOOPX_ROUND=",
		"LOOPX_AGENT=",
	}
}
