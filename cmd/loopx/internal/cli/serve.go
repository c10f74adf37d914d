package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/internal/broker"
	"github.com/loopx-dev/loopx/internal/watchdog"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/caller"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/frontend/dashboard"
	"github.com/loopx-dev/loopx/internal/frontend/httpapi"
	"github.com/loopx-dev/loopx/internal/frontend/serve"
	"github.com/spf13/cobra"
)

// serveOptions are the flags of `loopx serve`.
type serveOptions struct {
	addr           string
	allowRemote    bool
	tlsCert, tlsKy string
	detach         bool
}

// validate checks the flags alone: a non-loopback --addr needs
// --allow-remote with --tls-cert and --tls-key; the two files go together.
func (o *serveOptions) validate() error {
	if (o.tlsCert == "") != (o.tlsKy == "") {
		return usagef("--tls-cert and --tls-key go together")
	}
	if err := serve.CheckAddr(o.addr, o.allowRemote, o.tlsCert, o.tlsKy); err != nil {
		return errs.Wrap(errs.Usage, "serve_addr", err)
	}
	return nil
}

// anchorDir is the project's anchor directory, created (0700).
func (a *app) anchorDir() (root, dir string, err error) {
	root, err = a.root()
	if err != nil {
		return "", "", err
	}
	if a.opts.StateHome != "" {
		dir, err = anchor.EnsureIn(a.opts.StateHome, root)
	} else {
		dir, err = anchor.Ensure(root)
	}
	return root, dir, err
}

// runServe runs the project's server in the foreground until SIGTERM or
// SIGINT, or (--detach) starts it in the background and returns once it
// is ready.
func (a *app) runServe(ctx context.Context, o *serveOptions) error {
	root, dir, err := a.anchorDir()
	if err != nil {
		return err
	}
	if o.detach {
		return a.detachServe(dir)
	}
	engine.ServeGC()
	now, err := a.clock()
	if err != nil {
		return err
	}
	// The server's lock first, before the store's: a second server started
	// at the same moment is told at once that one runs (or is starting),
	// instead of waiting for the store this one is about to hold.
	lk, err := serve.Acquire(dir)
	if err != nil {
		var re *serve.RunningError
		if errors.As(err, &re) {
			return errs.Wrap(errs.Usage, "serve_running", err)
		}
		return err
	}
	// Released last, once everything below has ended: `loopx serve stop`
	// returns when this lock is free, and a test or a script that removes
	// the project then must find no process still writing to it.
	defer lk.Close()
	if abs, err := filepath.Abs(root); err == nil {
		root = abs // a relative --project: the Resident keeps an absolute root
	}
	// A command run in the server cannot be killed alone, as a command in
	// its own process is at its hook's kernel timer or memory cap: a user
	// policy building gigabytes ends the whole server here (the Go
	// runtime's out-of-memory exit, status 2), and a request that overruns
	// its deadline aborts it (guarded). Either way its
	// clients answer as for a server gone (a PreToolUse blocked), the lock
	// dies with it and the next command runs in its own process.
	_ = watchdog.CapMemory(serverMemory)
	// The server holds the store's lock for its life: every command is
	// its client (served.go). A command in flight when it starts has
	// residentWait to finish.
	res, err := engine.OpenResident(engine.Options{Root: root, Now: now, StateHome: a.opts.StateHome, LockTimeout: residentWait, Ancestry: a.ancestry()})
	if err != nil {
		return err
	}
	// Work a request left running past its deadline (a hook's policy step)
	// ends, and writes its decision's log line, before the store closes.
	var left sync.WaitGroup
	defer func() {
		// A request stuck in a policy step holds the store: closing it
		// would wait forever. The process ends anyway, and the store's
		// lock with it.
		closed := make(chan struct{})
		go func() { left.Wait(); _ = res.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(residentWait):
		}
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The store is never closed while the server runs, where a command's
	// shrinks its grown file: the server shrinks it when idle.
	go res.KeepShrunk(ctx, time.Minute, 30*time.Second, func(err error) {
		fmt.Fprintf(a.stderr, "loopx serve: shrinking the store (state.db.bak keeps the file before): %v\n", err)
	})
	var handler http.Handler
	stopped := make(chan struct{})
	if o.addr != "" {
		if handler, err = a.httpAPI(dir, root, res, now, stopped); err != nil {
			return err
		}
	}
	err = serve.Serve(ctx, serve.Options{
		AnchorDir: dir, Lock: lk, Root: root, Addr: o.addr, AllowRemote: o.allowRemote, Handler: handler,
		OnStop:  func() { close(stopped) },
		TLSCert: o.tlsCert, TLSKey: o.tlsKy, Now: now, DropAnswer: testDropAnswer(), Run: idleStop(ctx, cancel, guarded(filepath.Join(dir, serve.RecordName), a.stderr, &left, a.serveRun(res))),
		Ready: func(r serve.Record) {
			fmt.Fprintf(a.stderr, "loopx: serving %s (pid %d, socket %s%s) (Ctrl-C to stop)\n", root, r.PID, r.Socket, addrText(r.Addr))
		},
	})
	var re *serve.RunningError
	if errors.As(err, &re) {
		return errs.Wrap(errs.Usage, "serve_running", err)
	}
	return err
}

// httpAPI is the HTTP handler of the server (httpapi): its token in the
// anchor directory, and each request run as the command it names over the
// kept store, by a caller with no process (caller.NoProcess: no
// environment, no terminal, never taken for a human at a terminal), on
// the server's clock now; its streams end when stopped is closed.
func (a *app) httpAPI(dir, root string, res *engine.Resident, now func() time.Time, stopped <-chan struct{}) (http.Handler, error) {
	tok, err := httpapi.EnsureToken(dir)
	if err != nil {
		return nil, fmt.Errorf("the server's token (%s): %w", filepath.Join(dir, httpapi.TokenFile), err)
	}
	sessions := dashboard.NewSessions(tok, filepath.Base(root), root, now)
	page, err := dashboard.New(dashboard.Config{
		Sessions: sessions,
		Project:  filepath.Base(root),
		Run: func(ctx context.Context, argv []string, typed string, stdout, stderr io.Writer) int {
			o := Options{StateHome: a.opts.StateHome, Now: now, Caller: caller.NoProcess(root), Resident: res,
				Terminal: typedOnPage(typed), Dashboard: true}
			return RunWith(ctx, o, append([]string{"--project", root}, argv...), strings.NewReader(""), stdout, stderr)
		},
	})
	if err != nil {
		return nil, err
	}
	return httpapi.New(httpapi.Config{
		Token:    tok,
		StateDir: filepath.Join(root, ".loopx"),
		Run: func(ctx context.Context, argv []string, stdout, stderr io.Writer) int {
			o := Options{StateHome: a.opts.StateHome, Now: now, Caller: caller.NoProcess(root), Resident: res, Terminal: noTerminal{}}
			return RunWith(ctx, o, append([]string{"--project", root}, argv...), strings.NewReader(""), stdout, stderr)
		},
		Session: sessions.Valid,
		Page:    page,
		Owns:    dashboard.Owns,
		Stop:    stopped,
	})
}

// typedOnPage is the Terminal of a dashboard write: what the person typed
// into the page's confirmation before sending it.
type typedOnPage string

func (t typedOnPage) Ask(string) (string, error) { return string(t), nil }

// serverMemory caps the server's data segment (watchdog.CapMemory), in
// bytes: a user policy that builds gigabytes ends the server, not the
// machine.
const serverMemory = 4 << 30

// requestOverrun is how long past its deadline a request may run before
// the server gives up on itself (guarded).
const requestOverrun = 2 * time.Second

// guarded watches each request that carries a deadline (a hook's): one
// second past it, a request still running holds a policy step that never
// returns (its context is long done), or left such work running when it
// answered at its deadline (Options.Abandoned: the guard stays until that
// work ends and lets the kept store go; left, when not nil, counts such
// work, which the server waits for before it closes the store), so the server removes its record
// (recordPath: new commands run in their own process, and wait for the
// store's lock) and says so on stderr (serve.log); requestOverrun past
// it a kernel timer aborts the server (SIGABRT: the goroutines' stacks in
// serve.log, exit status 2), which frees the lock. The client has long
// answered by then (a PreToolUse blocked); a command that reached the
// server in between fails (exit 3).
func guarded(recordPath string, stderr io.Writer, left *sync.WaitGroup, run func(context.Context, *broker.Session) int) func(context.Context, *broker.Session) int {
	return func(ctx context.Context, s *broker.Session) int {
		d := time.Duration(s.Request.DeadlineMS) * time.Millisecond
		if d <= 0 {
			return run(ctx, s)
		}
		var stops []func() bool
		if t, err := watchdog.Arm(d+requestOverrun, watchdog.Abort); err == nil {
			stops = append(stops, func() bool { t.Stop(); return true })
		}
		drain := time.AfterFunc(d+time.Second, func() {
			_ = os.Remove(recordPath)
			fmt.Fprintf(stderr, "loopx serve: a request (loopx %s) runs past its deadline: stopping (commands run in their own process)\n", strings.Join(s.Request.Argv, " "))
		})
		stops = append(stops, drain.Stop)
		var work []<-chan struct{}
		code := run(withAbandoned(ctx, func(c <-chan struct{}) { work = append(work, c) }), s)
		// A command that answered at its deadline may leave work running
		// (a hook's policy step, which cannot be cancelled) that holds the
		// kept store: the guard stays until that work ends, and so does
		// the server (left).
		if left != nil {
			left.Add(1)
		}
		go func() {
			if left != nil {
				defer left.Done()
			}
			for _, c := range work {
				<-c
			}
			for _, stop := range stops {
				stop()
			}
		}()
		return code
	}
}

// abandonedKey carries, in a request's context, where the command reports
// work it left running (Options.Abandoned).
type abandonedKey struct{}

func withAbandoned(ctx context.Context, f func(<-chan struct{})) context.Context {
	return context.WithValue(ctx, abandonedKey{}, f)
}

// abandonedFrom is the request's Options.Abandoned (nil outside guarded).
func abandonedFrom(ctx context.Context) func(<-chan struct{}) {
	f, _ := ctx.Value(abandonedKey{}).(func(<-chan struct{}))
	return f
}

// residentWait bounds how long `loopx serve` waits for the store's lock
// at its start (a command in flight finishes first).
const residentWait = 10 * time.Second

// addrText is ", http://ADDR" for a server with an HTTP address.
func addrText(addr string) string {
	if addr == "" {
		return ""
	}
	return ", http://" + addr
}

// detachServe starts `loopx serve` again without --detach, in a session
// of its own with no terminal, and waits until its record is written (or
// it exits: its error, written to the anchor's serve.log, is shown).
func (a *app) detachServe(dir string) error {
	if r, err := serve.Status(dir); err == nil {
		return errs.Wrap(errs.Usage, "serve_running", &serve.RunningError{Record: r})
	}
	var args []string
	for _, s := range a.args {
		if s != "--detach" {
			args = append(args, s)
		}
	}
	r, err := a.startServer(dir, args)
	if err != nil {
		return err
	}
	return a.print(r, func(w io.Writer) {
		fmt.Fprintf(w, "loopx serve: running (pid %d, socket %s%s)\n", r.PID, r.Socket, addrText(r.Addr))
	})
}

// startServer starts `loopx ARGS…` (a serve command line) in a session of
// its own with no terminal, its output in the anchor's serve.log, and
// waits until its record is written (its Record), or it exits (its error,
// from serve.log, is shown; the error carries its exit code's kind).
func (a *app) startServer(dir string, args []string) (serve.Record, error) {
	exe, err := os.Executable()
	if err != nil {
		return serve.Record{}, err
	}
	// The child writes to a file of its own until it is the server: a
	// second --detach that loses the race must not truncate the running
	// server's serve.log. Ready, its file becomes serve.log.
	logPath := dir + "/serve.log"
	log, err := os.CreateTemp(dir, "serve.log.starting-*")
	if err != nil {
		return serve.Record{}, err
	}
	defer log.Close()
	startLog := log.Name()
	cmd := exec.Command(exe, args...)
	cmd.Args[0] = os.Args[0] // the name it was run by (a test binary's commands go by it)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return serve.Record{}, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			b, _ := os.ReadFile(startLog)
			_ = os.Remove(startLog)
			fmt.Fprintf(a.stderr, "%s", b)
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return serve.Record{}, reported(kindOfExit(ee.ExitCode()))
			}
			return serve.Record{}, fmt.Errorf("loopx serve exited at once: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		if r, err := serve.Status(dir); err == nil && r.PID == cmd.Process.Pid {
			_ = os.Rename(startLog, logPath) // else its log keeps the name it started with
			return r, nil
		}
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = os.Rename(startLog, logPath)
	return serve.Record{}, errs.Internalf("serve_start", "loopx serve did not become ready in 30s (see %s)", logPath)
}

// kindOfExit is the error kind of exit code c.
func kindOfExit(c int) errs.Kind {
	switch c {
	case ExitUsage:
		return errs.Usage
	case ExitNo:
		return errs.No
	}
	return errs.Internal
}

// serveStatus is `loopx serve status`'s document.
type serveStatus struct {
	serve.Record
	// UptimeSeconds is how long the server has run, in whole seconds.
	UptimeSeconds int64 `json:"uptime_seconds"`
	// TokenFile is the file holding the HTTP API's bearer token (in the
	// anchor directory, mode 0600), when the server serves HTTP.
	TokenFile string `json:"token_file,omitempty"`
}

// runServeStatus checks that a human asks (data.loopx.repair.decision,
// refused with exit 1 and audited as serve.status_refused otherwise: the
// status names the token's file), then prints the running server's record
// and uptime (exit 0), or says none runs (exit 1). While a server runs it
// runs inside it (the client is forwarded), which reads the caller from
// the socket's peer.
func (a *app) runServeStatus(ctx context.Context) error {
	root, dir, err := a.anchorDir()
	if err != nil {
		return err
	}
	e, err := a.engine()
	if err != nil {
		return err
	}
	if err := a.humanOnly(ctx, e, "serve status", true, "serve.status_refused", root); err != nil {
		return err
	}
	r, err := serve.Status(dir)
	if errors.Is(err, serve.ErrStartingOrStopping) {
		_ = a.print(map[string]any{"running": false, "starting_or_stopping": true}, func(w io.Writer) {
			fmt.Fprintln(w, "loopx serve: starting or stopping (its lock is held; it answers nothing yet, or any more)")
		})
		return reported(errs.No)
	}
	if errors.Is(err, serve.ErrNotRunning) {
		_ = a.print(map[string]any{"running": false}, func(w io.Writer) { fmt.Fprintln(w, "loopx serve: not running") })
		return reported(errs.No)
	}
	if err != nil {
		return err
	}
	now, err := a.clock()
	if err != nil {
		return err
	}
	st := serveStatus{Record: r, UptimeSeconds: int64(now().Sub(r.Start) / time.Second)}
	if r.Addr != "" {
		st.TokenFile = filepath.Join(dir, httpapi.TokenFile)
	}
	return a.print(st, func(w io.Writer) {
		fmt.Fprintf(w, "loopx serve: running (pid %d, since %s, up %s)\n  socket %s\n", r.PID, r.Start.Format(time.RFC3339), time.Duration(st.UptimeSeconds)*time.Second, r.Socket)
		if r.Addr != "" {
			fmt.Fprintf(w, "  http   http://%s\n  token  %s\n", r.Addr, st.TokenFile)
		}
	})
}

// runServeStop stops the running server (SIGTERM; requests in flight
// finish) and waits for it; exit 1 when none runs.
func (a *app) runServeStop(ctx context.Context) error {
	_, dir, err := a.anchorDir()
	if err != nil {
		return err
	}
	r, err := serve.Stop(ctx, dir, 60*time.Second)
	if errors.Is(err, serve.ErrStartingOrStopping) {
		fmt.Fprintln(a.stderr, "loopx serve: starting or stopping (its lock is held; it answers nothing yet, or any more)")
		return reported(errs.No)
	}
	if errors.Is(err, serve.ErrNotRunning) {
		fmt.Fprintln(a.stderr, "loopx serve: not running")
		return reported(errs.No)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "loopx serve: stopped (pid %d)\n", r.PID)
	return nil
}

func (a *app) serveCmd() *cobra.Command {
	o := &serveOptions{}
	c := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--detach]",
		Short: "Run the project's server: one process, a unix socket and a loopback HTTP address",
		Long: `Serve runs one long-lived process for the project. It holds a lock in the
project's anchor directory for its lifetime and records itself there
(serve.json: pid, start, socket, addr); a second serve on the project exits 2
naming the first. It listens on a unix socket in the anchor directory
(serve.sock, mode 0600; a short private directory under $XDG_RUNTIME_DIR or
the temporary directory when the path is too long for a socket) and on an
HTTP address, 127.0.0.1 on a random port by default (--addr; "" serves no
HTTP): OPA's Data API for the four decisions
(POST /v1/data/loopx/<run|permission|claim|gate>/decision), the --json
documents under /v1/ (goals, todos, gates, evidence, rounds, quota, agents,
decisions, events, status, review) and /v1/stream (server-sent events),
behind a bearer token in the anchor directory: serve status --json gives
addr and token_file. An address beyond this machine is refused unless
--allow-remote with --tls-cert and --tls-key.

SIGTERM or SIGINT (or loopx serve stop) lets requests in flight finish,
then removes the record and the socket. --detach starts it in the
background and returns once it is ready. See docs/serve.md and
docs/http.md.`,
		Example: "  loopx serve\n  loopx serve --detach\n  loopx serve status --json\n  loopx serve stop",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runServe(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.addr, "addr", "127.0.0.1:0", "HTTP listen address (\"\": no HTTP)")
	c.Flags().BoolVar(&o.allowRemote, "allow-remote", false, "allow a non-loopback --addr (needs --tls-cert and --tls-key)")
	c.Flags().StringVar(&o.tlsCert, "tls-cert", "", "TLS certificate (PEM) for HTTP")
	c.Flags().StringVar(&o.tlsKy, "tls-key", "", "TLS private key (PEM) for HTTP")
	c.Flags().BoolVar(&o.detach, "detach", false, "start in the background and return once ready")
	c.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Show the project's running server (human only; exit 1 when none runs)",
		Long: `Status shows the project's running server: its pid, start, uptime, socket,
and HTTP address with the file holding its bearer token (--json: addr,
socket, token_file, …). Exit 1 when none runs.

It is for a human: from an agent's process or inside a round it is refused
(exit 1) and audited (serve.status_refused).`,
		Example: "  loopx serve status\n  loopx serve status --json",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return a.runServeStatus(cmd.Context()) },
	}, &cobra.Command{
		Use:     "stop",
		Short:   "Stop the project's running server and wait for it (exit 1 when none runs)",
		Example: "  loopx serve stop",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return a.runServeStop(cmd.Context()) },
	})
	return c
}
