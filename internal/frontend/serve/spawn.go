package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/internal/broker"
)

// ServedEnv is set in a command the server runs for a client: that
// command runs in its own process and never forwards to the server again.
const ServedEnv = "LOOPX_SERVED"

// Spawn is a Run that runs each request as a process of exe (argv[0]
// arg0: the name loopx was run by) with the
// peer's own environment and working directory, read from /proc/PID
// (environ, cwd) — never from the request, which may only override the
// display variables of broker.PassedEnv. Errors reading the peer refuse
// the request (exit 3).
func Spawn(exe, arg0 string) func(ctx context.Context, pid int, req broker.Request, stdin io.Reader, stdout, stderr io.Writer) int {
	return func(ctx context.Context, pid int, req broker.Request, stdin io.Reader, stdout, stderr io.Writer) int {
		env, dir, err := peerProcess(pid)
		if err != nil {
			fmt.Fprintf(stderr, "loopx serve: the caller (pid %d): %v\n", pid, err)
			return 3
		}
		for k, v := range req.Env {
			env = append(env, k+"="+v)
		}
		env = append(env, ServedEnv+"=1")
		cmd := exec.CommandContext(ctx, exe, req.Argv...)
		cmd.Args[0] = arg0
		cmd.Dir, cmd.Env = dir, env
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
		cmd.WaitDelay = 5 * time.Second
		err = cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ee) && ee.ExitCode() >= 0:
			return ee.ExitCode()
		default:
			fmt.Fprintf(stderr, "loopx serve: %v\n", err)
			return 3
		}
	}
}

// peerProcess is process pid's environment (without ServedEnv) and
// working directory, from /proc/PID/environ and /proc/PID/cwd.
func peerProcess(pid int) (env []string, dir string, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return nil, "", err
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if len(kv) > 0 && !strings.HasPrefix(string(kv), ServedEnv+"=") {
			env = append(env, string(kv))
		}
	}
	dir, err = os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	return env, dir, err
}
