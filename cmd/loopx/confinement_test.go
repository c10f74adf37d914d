package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/loopx-dev/loopx/internal/confine"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestConfine runs the confinement scripts in testdata/confine: the
// escapes an agent command tries inside loopx run (and watch --exec),
// each expected to fail, and its own loopx calls through the broker.
// They run wherever bubblewrap confines, as root and as an unprivileged
// user (.ci/run runs them as both); under CI they never skip.
func TestConfine(t *testing.T) {
	testscript.Run(t, scriptParams(t, "testdata/confine"))
}

// bwrapCondition is the [bwrap] condition: bubblewrap confines here. Under
// CI its absence is an error, never a skip.
func bwrapCondition() (bool, error) {
	if _, err := confine.Bwrap(); err != nil {
		if os.Getenv("CI") != "" {
			return false, fmt.Errorf("no confinement under CI: %v", err)
		}
		return false, nil
	}
	return true, nil
}

// unixConnect is the unixconnect program the scripts run (inside a
// sandbox too): it connects to the unix socket named by its argument and
// exits 0 when it could, 1 when it could not.
func unixConnect() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: unixconnect SOCKET")
		os.Exit(2)
	}
	c, err := net.Dial("unix", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c.Close()
	os.Exit(0)
}

// cmdOutside makes a directory outside the script's work tree (below the
// system's temporary directory, which a sandbox makes private), removed
// when the script ends, and sets VAR to its path: outside VAR
func cmdOutside(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: outside VAR")
	}
	dir, err := os.MkdirTemp("/tmp", "loopx-outside-")
	ts.Check(err)
	ts.Defer(func() { os.RemoveAll(dir) })
	ts.Setenv(args[0], dir)
}

// cmdListen listens on a unix socket at PATH from the test's process (a
// docker daemon, an ssh-agent), accepting connections until the script
// ends: listen PATH
func cmdListen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: listen PATH")
	}
	l, err := net.Listen("unix", ts.MkAbs(args[0]))
	ts.Check(err)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ts.Defer(func() { l.Close() })
}

// cmdSpawn starts a program outside any sandbox, sets VAR to its process
// id, and kills it when the script ends: spawn VAR PROG ARGS…
func cmdSpawn(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: spawn VAR PROG ARGS…")
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Dir = ts.Getenv("WORK")
	ts.Check(cmd.Start())
	ts.Defer(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ts.Setenv(args[0], strconv.Itoa(cmd.Process.Pid))
}
