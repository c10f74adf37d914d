package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loopx-dev/loopx/engine/mutating/runround"
	"github.com/loopx-dev/loopx/internal/broker"
	"github.com/loopx-dev/loopx/internal/broker/wire"
	"github.com/loopx-dev/loopx/internal/caller"
	"github.com/loopx-dev/loopx/internal/confine"
	"github.com/loopx-dev/loopx/internal/frontend/serve"
)

// spawning are the commands whose client starts the agent's processes for
// the server (loopx run, watch --exec): those processes are the caller's
// children, never the server's.
func spawning(f forwardArgs) bool { return f.Spawning() }

// roundCaller is the process loopx run (or watch --exec) runs rounds for:
// zero in its own process; through a server, the client (the socket's
// peer): the rounds record it as their runner (so it and its children act
// as the round's agent), the agent command is started by it
// (Options.Spawn: its child, checked to be) from its environment, and a
// confined agent's loopx calls run in the server as the round's agent
// (brokerRun). Errors: a client that starts no process (usage).
func (a *app) roundCaller(what string) (runround.Caller, error) {
	if !a.opts.Caller.Remote() {
		return runround.Caller{}, nil
	}
	pid := a.opts.Caller.PID
	if a.opts.Spawn == nil || pid <= 0 {
		return runround.Caller{}, usagef("%s through the loopx server needs its own client, which starts the agent's processes: run loopx %s from a shell", what, what)
	}
	start := a.opts.Spawn
	spawn := func(ctx context.Context, argv, env []string, dir string) (int, func() (int, error), error) {
		child, wait, err := start(ctx, argv, env, dir)
		if err != nil {
			return 0, nil, err
		}
		// What the client says is checked: the process it names is its
		// own child (the sandbox's broker serves that process's
		// descendants only) — or gone already (a command that ended at
		// once, reaped: it has no descendants to serve).
		if child <= 0 || child == pid || (syscall.Kill(child, 0) == nil && !broker.DescendsFrom(child, pid)) {
			return 0, nil, fmt.Errorf("the client (pid %d) named process %d, which is not its child", pid, child)
		}
		return child, wait, nil
	}
	return runround.Caller{PID: pid, Env: a.opts.Caller.Environ(), Spawn: spawn, Broker: a.brokerRun}, nil
}

// brokerRun runs, in the server, a loopx call a confined agent made
// through its round's broker: the caller is the process inside the
// sandbox as the kernel names it (s.PID: its ancestry runs up to the
// round's runner, the client of loopx run), with env, the round's
// environment the server fixed (LOOPX_ROUND, LOOPX_AGENT, …, the brokered
// mark), the request's display variables in place; its working
// directory is the request's inside the work tree, else the root. No
// terminal is asked.
func (a *app) brokerRun(ctx context.Context, s *broker.Session, env []string) int {
	res := a.opts.Resident
	if res == nil {
		fmt.Fprintln(s.Stderr, "loopx broker: no server store")
		return ExitInternal
	}
	root := res.Root()
	dir := root
	if rel, err := filepath.Rel(root, s.Request.Cwd); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		dir = s.Request.Cwd
	}
	// The last of duplicate keys wins, as for the loopx process the
	// broker runs otherwise (os/exec keeps the last).
	last := map[string]int{}
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		last[k] = i
	}
	var e []string
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := s.Request.Env[k]; !ok && last[k] == i {
			e = append(e, kv)
		}
	}
	for _, k := range wire.PassedEnv {
		if v, ok := s.Request.Env[k]; ok {
			e = append(e, k+"="+v)
		}
	}
	if !s.PeerAlive() {
		fmt.Fprintf(s.Stderr, "loopx broker: %v\n", caller.ErrGone)
		return ExitInternal
	}
	run := func(ctx context.Context, s *broker.Session) int {
		o := Options{StateHome: a.opts.StateHome, Now: a.opts.Now, Caller: &caller.Process{PID: s.PID, Env: e, Dir: dir},
			Resident: res, Terminal: noTerminal{}, Abandoned: abandonedFrom(ctx)}
		return RunWith(ctx, o, s.Request.Argv, s.Stdin, s.Stdout, s.Stderr)
	}
	// A hook is bounded as a forwarded one is (its own process would be
	// ended by a kernel timer): past its deadline the server lets go of
	// the store, or stops (guarded).
	if scanArgs(s.Request.Argv).Command == "hook" && s.Request.DeadlineMS == 0 {
		s.Request.DeadlineMS = int64((hookDeadline + hookMargin) / time.Millisecond)
	}
	if _, adir, err := a.anchorDir(); err == nil {
		return guarded(filepath.Join(adir, serve.RecordName), s.Stderr, nil, run)(ctx, s)
	}
	return run(ctx, s)
}

// startAgent is the client's side of a server's Spawn: it starts the agent
// command (the sandbox's command line, or the command itself unconfined)
// as this process's child in a process group of its own, its output this
// process's standard error (dropped once a write there fails, as loopx
// run in its own process does), after marking every inherited descriptor
// close-on-exec (none reaches the sandbox). stop sends SIGTERM to the
// group, then SIGKILL ten seconds on.
func startAgent(sp wire.Spawn) (int, func() (int, error), func(), error) {
	if err := confine.CloseInherited(); err != nil {
		return 0, nil, nil, err
	}
	cmd := exec.Command(sp.Argv[0], sp.Argv[1:]...)
	cmd.Dir, cmd.Env = sp.Dir, sp.Env
	var out io.Writer = os.Stderr
	if !caller.IsTerminal(os.Stderr) {
		out = &dropping{w: os.Stderr}
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 0, nil, nil, err
	}
	pid := cmd.Process.Pid
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = syscall.Kill(-pid, syscall.SIGTERM)
			time.AfterFunc(10*time.Second, func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
		})
	}
	wait := func() (int, error) {
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			return ee.ExitCode(), nil
		case err != nil:
			return -1, err
		}
		return 0, nil
	}
	return pid, wait, stop, nil
}

// dropping writes to w until a write fails, then drops what comes: the
// agent command never dies of a closed pipe it was not given.
type dropping struct {
	mu     sync.Mutex
	w      io.Writer
	failed bool
}

func (d *dropping) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.failed {
		if _, err := d.w.Write(p); err != nil {
			d.failed = true
		}
	}
	return len(p), nil
}
