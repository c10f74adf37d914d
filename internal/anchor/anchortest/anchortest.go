// Package anchortest gives a test binary its own state directory, so that
// the anchor directories (package anchor) of the projects its tests create
// are never written under the user's real $XDG_STATE_HOME or home.
package anchortest

import (
	"os"
	"testing"

	"github.com/loopx-dev/loopx/internal/testpace"
)

// Main sets XDG_STATE_HOME to a fresh temporary directory, runs m and
// removes the directory; it returns m.Run's exit code. It also paces the
// garbage collector as test binaries do (testpace.Set). Use it as
// `func TestMain(m *testing.M) { os.Exit(anchortest.Main(m)) }`. A test
// that needs its own state directory still sets one with t.Setenv.
func Main(m *testing.M) int {
	testpace.Set()
	if dir := os.Getenv(inherited); dir != "" {
		// A child process a test started (the crash tests): the parent's.
		os.Setenv("XDG_STATE_HOME", dir)
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "loopx-xdg-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	os.Setenv(inherited, dir)
	code := m.Run()
	os.RemoveAll(dir)
	return code
}

// inherited names the temporary state directory for the test binary's
// child processes.
const inherited = "LOOPX_TEST_XDG"

// M wraps a *testing.M for testscript.Main: its Run is Main's, so the test
// binary's own run gets a temporary XDG_STATE_HOME while the commands a
// script execs (the same binary) keep the one their script set.
type M struct{ M *testing.M }

// Run runs the tests under a temporary XDG_STATE_HOME (Main).
func (m M) Run() int { return Main(m.M) }
