package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/early"
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/broker"
	"github.com/loopx-dev/loopx/internal/broker/wire"
	"github.com/loopx-dev/loopx/internal/caller"
	"github.com/loopx-dev/loopx/internal/frontend/gateanswer"
	"github.com/loopx-dev/loopx/internal/frontend/hook"
	"github.com/loopx-dev/loopx/internal/frontend/serve"
	"github.com/loopx-dev/loopx/internal/serveclient"
)

// completeTimeout bounds a completion request through a server.
const completeTimeout = 2 * time.Second

// forwardTimeout bounds a forwarded command (but for a person typing at
// a prompt); a hook's is hookDeadline plus a margin under the host's 10 s.
const forwardTimeout = early.ForwardTimeout

// testForwardTimeoutEnv names, in a test build only (testing.Testing), a
// duration that replaces a forwarded command's timeout: a test sees a
// stuck server's answer without waiting for the real one.
const testForwardTimeoutEnv = early.TestForwardTimeoutEnv

// testForwardTimeout is $LOOPX_TEST_FORWARD_TIMEOUT in a test build, else
// 0 (none).
func testForwardTimeout() time.Duration {
	if !testing.Testing() {
		return 0
	}
	d, _ := time.ParseDuration(os.Getenv(testForwardTimeoutEnv))
	return max(d, 0)
}

// hookMargin is what a forwarded hook waits for the server past its own
// deadline, before it answers by itself (blocked or a warning).
const hookMargin = early.HookMargin

// forwardArgs is what forwarding needs of the arguments before cobra
// parses them (early.Args).
type forwardArgs = early.Args

// scanArgs reads forwardArgs from loopx's arguments (early.Scan).
func scanArgs(args []string) forwardArgs { return early.Scan(args) }

// notServed, completing and streaming are early's: commands that never go
// through a server, cobra's completion requests, and the commands that
// run as long as their caller wants.
var (
	notServed  = early.NotServed
	completing = early.Completing
	streaming  = early.Streaming
)

// serverFor is the record of the server running for the project the
// arguments name (--project, $LOOPX_PROJECT, else found upwards from the
// working directory); ok is false when none runs (or the project cannot
// be found: the command then says so in process).
func serverFor(f forwardArgs) (r serve.Record, dir string, ok bool) {
	root := f.Project
	if root == "" {
		root = os.Getenv("LOOPX_PROJECT")
	}
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return r, "", false
		}
		if root, err = scaffold.FindRoot(wd); err != nil {
			return r, "", false
		}
	}
	dir, err := anchor.Dir(root)
	if err != nil {
		return r, "", false
	}
	r, ok = serve.Lookup(dir)
	return r, dir, ok
}

// forwardedStdin is standard input forward read for a server it then
// could not reach (a hook's payload), nil when it read none: Main runs the
// command in process on it.
var forwardedStdin []byte

// forward runs loopx's arguments through the project's server when one
// runs (`loopx serve`): the server runs the command for this process, with
// the same output and exit code; ok is false when the command runs in
// process (no server, or a command that never goes through one).
func forward(args []string) (code int, ok bool) {
	f := scanArgs(args)
	if h := early.Hook; h != nil {
		// early sent this hook to the server, which did not answer.
		return hookUnanswered(f, h.Record, h.Timeout, h.Err, h.Payload), true
	}
	if testServed() && f.Command == "init" && !f.Help {
		// init refuses while a server runs; the served pass's servers
		// are its own: stopped as a person would stop theirs first.
		if _, dir, running := serverFor(f); running {
			StopTestServer(dir)
		}
	}
	if f.Help || f.Command == "" || (notServed[f.Command] && !f.ServeStatus()) {
		return 0, false
	}
	r, dir, running := serverFor(f)
	if dir != "" && testServed() && !f.ServeStatus() {
		r, running = testServer(f, dir, r, running)
	}
	if !running {
		return 0, false
	}
	req, err := wire.NewRequest(args)
	if err != nil && f.Command == "hook" {
		// No request to send (a working directory removed): answered as
		// any hook's error, a PreToolUse blocked, never exit 3 (which
		// the host lets through).
		data, _ := io.ReadAll(io.LimitReader(os.Stdin, hosts.MaxPayload+1))
		return hookUnanswered(f, r, 0, err, data), true
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "loopx: %v\n", err)
		return ExitInternal, true
	}
	var stdin io.Reader = os.Stdin
	if caller.IsTerminal(os.Stdin) {
		// A terminal is left to the prompts (typed confirmations): what a
		// person types there is not sent ahead as standard input.
		stdin = nil
	}
	timeout := forwardTimeout
	if f.Command == "hook" {
		// The payload is read here, whole and bounded, so that the
		// deadline covers the server's work only; an unreadable one is
		// the server's to answer (as in process).
		data, _ := io.ReadAll(io.LimitReader(os.Stdin, hosts.MaxPayload+1))
		stdin = bytes.NewReader(data)
		timeout = hookDeadline + hookMargin
		if d := testForwardTimeout(); d > 0 {
			timeout = d
		}
		req.DeadlineMS = int64(timeout / time.Millisecond)
		code, err = serve.Call(r, req, timeout, stdin, os.Stdout, os.Stderr, nil)
		if err == nil {
			return code, true
		}
		if dialFailed(err) {
			forwardedStdin = data // the payload is read: Main answers it in process
			return 0, false
		}
		return hookUnanswered(f, r, timeout, err, data), true
	}
	if streaming[f.Command] {
		timeout = 0
	}
	if d := testForwardTimeout(); d > 0 {
		timeout = d
	}
	if spawning(f) {
		// The server runs the loop; this process starts the agent's
		// processes (its children) and tells the server when the person
		// asks it to stop.
		req.Spawn = true
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sigs)
		interrupt := make(chan struct{})
		go func() {
			if _, ok := <-sigs; ok {
				close(interrupt)
			}
		}()
		code, err = serve.CallSpawning(r, req, timeout, stdin, os.Stdout, os.Stderr, gateanswer.ControllingTerminal{}.Ask, startAgent, interrupt)
		if err == nil {
			return code, true
		}
		if dialFailed(err) {
			return 0, false
		}
		fmt.Fprintf(os.Stderr, "loopx: %v\n", serverError(r, timeout, err))
		return ExitInternal, true
	}
	if completing[f.Command] {
		var out bytes.Buffer
		if code, err = serve.Call(r, req, completeTimeout, nil, &out, io.Discard, nil); err != nil {
			return 0, false
		}
		_, _ = os.Stdout.Write(out.Bytes())
		return code, true
	}
	req.Key = keyFor(f)
	code, err = serve.CallKeyed(dir, r, req, timeout, stdin, os.Stdout, os.Stderr, gateanswer.ControllingTerminal{}.Ask)
	if err == nil {
		return code, true
	}
	if dialFailed(err) && !errors.Is(err, serve.ErrAnswerLost) {
		return 0, false
	}
	fmt.Fprintf(os.Stderr, "loopx: %v\n", serverError(r, timeout, err))
	return ExitInternal, true
}

// hookUnanswered answers a hook the server r got (its payload data) and
// did not answer within timeout (err says why): blocked (exit 2) when the
// event blocks on an error, else a warning to the host (exit 0).
func hookUnanswered(f forwardArgs, r serve.Record, timeout time.Duration, err error, data []byte) int {
	err = serverError(r, timeout, err)
	event, blocks := hook.ArgsErrorBlocks(f.Event, bytes.NewReader(data))
	if blocks {
		fmt.Fprintf(os.Stderr, "loopx hook: blocked: %v\n", err)
		return ExitUsage
	}
	fmt.Fprintf(os.Stderr, "loopx hook: %v\n", err)
	_ = hosts.WriteWarning(os.Stdout, fmt.Sprintf("loopx hook (%s): %v", event, err))
	return ExitOK
}

// keyFor is the idempotency key a forwarded command carries: a fresh one
// (newKey) for a command that may change state, so it is run once and a
// client whose connection ended before the exit asks the same server
// again; none ("") for a long session (mcp, watch), which must end with
// its client (a keyed command goes on when its client goes away), nor
// for a hook or a completion (they do not reach the keyed call).
func keyFor(f forwardArgs) string {
	if !f.Keyed() {
		return ""
	}
	return newKey()
}

// newKey is a fresh idempotency key (wire.Request.Key): 128 random
// bits in hex.
func newKey() string {
	var b [wire.KeyLen / 2]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// serverError says what went wrong with the server r in words: it did
// not answer within timeout, or err.
func serverError(r serve.Record, timeout time.Duration, err error) error {
	return serveclient.ServerError(r, timeout, err)
}

// dialFailed reports whether err is a connection that never started (a
// server that just stopped): the command then runs in process, where the
// store's lock says whether it may.
func dialFailed(err error) bool { return serveclient.DialFailed(err) }

// serveRun is what the server runs for each forwarded command: the command
// in this process over the Resident res, as the client: its environment,
// working directory, terminal and ancestors (caller.FromPID), never the
// server's. A client that cannot be read is refused (exit 3).
func (a *app) serveRun(res *engine.Resident) func(ctx context.Context, s *broker.Session) int {
	return func(ctx context.Context, s *broker.Session) int {
		// A hook and a decision are answered one per processor at a
		// time, first come first served (Resident.Admit); other commands
		// may wait on a person or run for long, and are not held back.
		if c := scanArgs(s.Request.Argv).Command; c == "hook" || c == "decide" {
			defer res.Admit()()
		}
		p, err := caller.FromPID(s.PID)
		if err == nil && !s.PeerAlive() {
			err = caller.ErrGone
		}
		if err != nil {
			fmt.Fprintf(s.Stderr, "loopx serve: %v\n", err)
			return ExitInternal
		}
		o := Options{StateHome: a.opts.StateHome, Now: a.opts.Now, Caller: p, Resident: res,
			Terminal: sessionTerminal{ctx, s}, Abandoned: abandonedFrom(ctx)}
		if s.Request.Spawn {
			o.Spawn = s.Spawn
		}
		return RunWith(ctx, o, s.Request.Argv, s.Stdin, s.Stdout, s.Stderr)
	}
}

// sessionTerminal asks the client's terminal over the socket: the client
// shows the prompt on its controlling terminal and sends back what was
// typed there.
type sessionTerminal struct {
	ctx context.Context
	s   *broker.Session
}

func (t sessionTerminal) Ask(prompt string) (string, error) { return t.s.Ask(t.ctx, prompt) }

// checkResident refuses (usage) a command a server runs for another
// project than its own.
func (a *app) checkResident(root string) error {
	res := a.opts.Resident
	if res == nil {
		return nil
	}
	want, err1 := anchor.RealRoot(res.Root())
	got, err2 := anchor.RealRoot(root)
	if err1 != nil || err2 != nil || filepath.Clean(want) != filepath.Clean(got) {
		return usagef("this loopx server serves %s, not %s", res.Root(), root)
	}
	return nil
}
