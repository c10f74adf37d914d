package cli

import (
	"context"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/broker"
	"github.com/loopx-dev/loopx/internal/frontend/serve"
)

// The CLI scripts' served pass: in a test build (testing.Testing) with
// $LOOPX_TEST_SERVED set, every command of a project that a server would
// run first starts one (`loopx serve --detach --addr ”`) when none runs,
// so the whole suite runs again with every command going through a
// server. Such a server ends by itself once no command came for
// $LOOPX_TEST_SERVE_IDLE (the script's directory is gone by then). A
// release build ignores both variables.
const (
	testServedEnv    = "LOOPX_TEST_SERVED"
	testServeIdleEnv = "LOOPX_TEST_SERVE_IDLE"
)

// testServed reports whether the served pass is on.
func testServed() bool { return testing.Testing() && os.Getenv(testServedEnv) != "" }

// testServer starts or stops the project's server for the served pass
// (r and running: what the client found in the anchor directory dir) and
// returns what runs now.
func testServer(f forwardArgs, dir string, r serve.Record, running bool) (serve.Record, bool) {
	if running {
		return r, true
	}
	if lockHeld(f, dir) {
		return r, false // another process holds the store: no server could start
	}
	exe, err := os.Executable()
	if err != nil {
		return r, false
	}
	cmd := exec.Command(exe, "serve", "--detach", "--addr", "")
	if f.Project != "" {
		cmd.Args = append(cmd.Args, "--project", f.Project)
	}
	cmd.Args[0] = os.Args[0]
	cmd.Env = append(os.Environ(), testServeIdleEnv+"=3s")
	if cmd.Run() != nil {
		return r, false
	}
	return serve.Lookup(dir)
}

// StopTestServer stops the server recorded in the anchor directory dir,
// if one runs, and waits (up to 10 s) until it is gone: the served pass
// stops it before a script edits the store's files behind its back.
func StopTestServer(dir string) {
	r, ok := serve.Lookup(dir)
	if !ok {
		return
	}
	_ = syscall.Kill(r.PID, syscall.SIGTERM)
	for i := 0; i < 500; i++ {
		if syscall.Kill(r.PID, 0) != nil {
			return
		}
		if _, ok := serve.Lookup(dir); !ok {
			time.Sleep(20 * time.Millisecond) // the record goes before the process
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// idleStop wraps run so that, in the served pass, the server's context is
// cancelled once no command ran for $LOOPX_TEST_SERVE_IDLE; otherwise it
// returns run as it is.
func idleStop(ctx context.Context, cancel context.CancelFunc, run func(context.Context, *broker.Session) int) func(context.Context, *broker.Session) int {
	idle, _ := time.ParseDuration(os.Getenv(testServeIdleEnv))
	if !testing.Testing() || idle <= 0 {
		return run
	}
	var mu sync.Mutex
	busy, last := 0, time.Now()
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				mu.Lock()
				done := busy == 0 && time.Since(last) > idle
				mu.Unlock()
				if done {
					cancel()
					return
				}
			}
		}
	}()
	return func(ctx context.Context, s *broker.Session) int {
		mu.Lock()
		busy++
		mu.Unlock()
		defer func() {
			mu.Lock()
			busy--
			last = time.Now()
			mu.Unlock()
		}()
		return run(ctx, s)
	}
}

// lockHeld reports whether another process holds the project's state
// lock (.loopx/state.lock below the root the record or the arguments
// name): a server started now would wait for it.
func lockHeld(f forwardArgs, dir string) bool {
	root := f.Project
	if root == "" {
		root = os.Getenv("LOOPX_PROJECT")
	}
	if root == "" {
		wd, _ := os.Getwd()
		root, _ = scaffold.FindRoot(wd)
	}
	fh, err := os.Open(filepath.Join(root, scaffold.StateDirName, "state.lock"))
	if err != nil {
		return false
	}
	defer fh.Close()
	if err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	_ = syscall.Flock(int(fh.Fd()), syscall.LOCK_UN)
	return false
}

// testDropAnswerEnv names, in a test build only (testing.Testing), a
// variable that makes a server end the connection of every keyed
// command's first attempt after the command ran and before its exit
// frame, as a lost connection would: what the client's retry does is
// tested. A release build ignores it.
const testDropAnswerEnv = "LOOPX_TEST_DROP_ANSWER"

// testDropAnswer is the server's serve.Options.DropAnswer in a test build
// with $LOOPX_TEST_DROP_ANSWER set, else nil.
func testDropAnswer() func(*broker.Session) bool {
	if !testing.Testing() || os.Getenv(testDropAnswerEnv) == "" {
		return nil
	}
	return func(s *broker.Session) bool { return !s.Request.Retry }
}
