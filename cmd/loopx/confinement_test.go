package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/confine"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestConfine runs the confinement scripts in testdata/confine under
// both drivers of rounds, loopx run and loopx watch --exec ($DRIVER, which
// the drive program reads): the escapes an agent command tries, each
// expected to fail, and its own loopx calls through the broker. They run
// wherever bubblewrap confines, as root and as an unprivileged user
// (.ci/run runs them as both); under CI they never skip.
func TestConfine(t *testing.T) {
	t.Parallel() // each script its own work directory and state directory
	for _, driver := range []string{"run", "watch"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			p := scriptParams(t, "testdata/confine")
			setup := p.Setup
			p.Setup = func(env *testscript.Env) error {
				env.Setenv("DRIVER", driver)
				return setup(env)
			}
			testscript.Run(t, p)
		})
	}
}

// TestConfineHosts runs the scripts in testdata/hosts: the real agent
// hosts (Claude Code, Codex) start inside loopx run's confinement. They
// run where both are installed: on PATH, or in the directory
// $LOOPX_TEST_HOSTS names (put first on the scripts' PATH); elsewhere,
// and under CI, which does not install them, they skip.
func TestConfineHosts(t *testing.T) {
	p := scriptParams(t, "testdata/hosts")
	if dir := os.Getenv("LOOPX_TEST_HOSTS"); dir != "" {
		setup := p.Setup
		p.Setup = func(env *testscript.Env) error {
			if err := setup(env); err != nil {
				return err
			}
			env.Setenv("PATH", dir+string(os.PathListSeparator)+env.Getenv("PATH"))
			return nil
		}
	}
	testscript.Run(t, p)
}

// driveTimeout bounds how long drive waits for watch --exec's round.
const driveTimeout = 5 * time.Minute

// drive is the drive program the confinement scripts run: one round of
// the agent command, driven as $DRIVER says. drive --goal G --agent A --
// CMD… runs "loopx run --max-rounds 1 --goal G --agent A -- CMD…" (run),
// or "loopx watch --exec --goal G --agent A -- CMD…" (watch), which it
// interrupts once watch reports the round finished; it exits with loopx
// run's code, or 0 when watch ran a round and stopped on the interrupt
// (exit 130), else watch's own code (1 when it stopped by itself without
// a round or ran none within driveTimeout).
func drive() {
	args := os.Args[1:]
	switch os.Getenv("DRIVER") {
	case "run":
		cmd := exec.Command("loopx", append([]string{"run", "--max-rounds", "1"}, args...)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		os.Exit(exitCode(cmd.Run()))
	case "watch":
		os.Exit(driveWatch(args))
	default:
		fmt.Fprintf(os.Stderr, "drive: DRIVER=%q: want run or watch\n", os.Getenv("DRIVER"))
		os.Exit(2)
	}
}

// driveWatch runs loopx watch --exec with args and interrupts it once it
// says a round finished ("round r-… finished: …" on stderr, copied
// through); it returns drive's exit code.
func driveWatch(args []string) int {
	cmd := exec.Command("loopx", append([]string{"watch", "--exec"}, args...)...)
	cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout
	stderr, err := cmd.StderrPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "drive: %v\n", err)
		return 3
	}
	finished := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			fmt.Fprintln(os.Stderr, sc.Text())
			if !once && roundFinished.MatchString(sc.Text()) {
				once = true
				close(finished)
			}
		}
	}()
	ran := false
	select {
	case <-finished:
		ran = true
	case <-time.After(driveTimeout):
		fmt.Fprintf(os.Stderr, "drive: watch --exec ran no round within %s\n", driveTimeout)
	}
	_ = cmd.Process.Signal(os.Interrupt)
	code := exitCode(cmd.Wait())
	switch {
	case ran && code == 130:
		return 0
	case code == 0 || code == 130:
		return 1
	}
	return code
}

// roundFinished is the line watch --exec writes on stderr after a round.
var roundFinished = regexp.MustCompile(`^round r-[0-9a-f]+ finished: `)

// exitCode is a finished command's exit code (3 when it did not run).
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	}
	fmt.Fprintf(os.Stderr, "drive: %v\n", err)
	return 3
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
