package serve

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/loopx-dev/loopx/internal/broker"
)

// Options configure Serve.
type Options struct {
	// AnchorDir is the project's anchor directory (existing, 0700): the
	// record, the lock and (when its path fits) the socket live there.
	AnchorDir string
	// Lock is the project's server lock when the caller took it first
	// (Acquire: before it opened the store, so that a second server
	// started at the same moment is told at once); it stays the caller's
	// to release, after whatever the server left running has ended (`loopx
	// serve stop` returns when the lock is free, so the process must do
	// nothing more once it lets it go). nil: Serve takes it and releases
	// it on return.
	Lock *Lock
	// Root is the project's root directory (recorded).
	Root string
	// Addr is the HTTP listen address (host:port; port 0 picks one);
	// "" serves no HTTP. A host that is not loopback is refused
	// (ErrRemote) unless AllowRemote with TLSCert and TLSKey.
	Addr        string
	AllowRemote bool
	// TLSCert and TLSKey are PEM files: HTTP is served over TLS with them.
	TLSCert, TLSKey string
	// Handler answers HTTP requests; nil is Health.
	Handler http.Handler
	// Run runs one command a client forwarded over the socket
	// (broker.Server.Run: the session's peer pid, request, streams and
	// prompts); nil answers every request with exit 3. A Run
	// must take who the caller is from the peer's pid (its ancestry, its
	// terminal), never from the server's own process: a command run as a
	// child of the server would see the server's ancestry (whoever
	// started it) in place of the caller's.
	Run func(ctx context.Context, s *broker.Session) int
	// DropAnswer, when set, is asked after a keyed command ran: true
	// ends its connection without the exit frame (broker.Server.DropAnswer;
	// tests only).
	DropAnswer func(s *broker.Session) bool
	// Ready, when set, is called once the server listens and its record
	// is written.
	Ready func(Record)
	// Grace bounds how long requests in flight may finish after ctx is
	// done (0: 30 s); then they are cancelled.
	Grace time.Duration
	// StopMargin is how long past Grace a stopping server waits for
	// requests that ignore their cancellation before it returns anyway
	// (0: 5 s).
	StopMargin time.Duration
	// Now is the clock of the record's start (nil: time.Now).
	Now func() time.Time
	// OnStop, when set, is called once as the server begins to stop,
	// before it waits for HTTP requests in flight: a handler that would
	// never end by itself (a stream of events) ends when told here.
	OnStop func()
}

// ErrRemote is Serve's error for a non-loopback Addr without
// AllowRemote and a TLS certificate and key (a usage error).
var ErrRemote = errors.New("serving HTTP beyond this machine needs --allow-remote with --tls-cert and --tls-key")

// Health is the HTTP handler of a server without another: GET /health
// answers {"status":"ok"}, anything else 404 {"error":"not found"}.
func Health() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/health" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok"})
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "not found"})
	})
}

// CheckAddr refuses (ErrRemote) a non-loopback addr unless allowRemote
// with a certificate and a key; a malformed addr is an error too.
func CheckAddr(addr string, allowRemote bool, cert, key string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	if allowRemote && cert != "" && key != "" {
		return nil
	}
	return ErrRemote
}

// Serve runs the project's server until ctx is done, then lets requests
// in flight finish (Options.Grace) and removes its record and socket.
// Errors: *RunningError when another server holds the project; ErrRemote;
// those of listening.
func Serve(ctx context.Context, o Options) (err error) {
	if err := CheckAddr(o.Addr, o.AllowRemote, o.TLSCert, o.TLSKey); err != nil {
		return err
	}
	if o.Lock == nil {
		lk, err := Acquire(o.AnchorDir)
		if err != nil {
			return err
		}
		defer lk.Close() // closing the file releases the lock, last
	}
	defer os.Remove(filepath.Join(o.AnchorDir, RecordName))

	sock, shortDir, err := socketPath(o.AnchorDir)
	if err != nil {
		return err
	}
	if shortDir != "" {
		defer os.RemoveAll(shortDir)
	}
	_ = os.Remove(sock) // a killed server's: the lock is ours
	ul, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return err
	}
	ul.SetUnlinkOnClose(true)
	if err := os.Chmod(sock, 0o600); err != nil {
		ul.Close()
		return err
	}

	var hs *http.Server
	var hl net.Listener
	if o.Addr != "" {
		hl, err = net.Listen("tcp", o.Addr)
		if err != nil {
			ul.Close()
			return err
		}
		h := o.Handler
		if h == nil {
			h = Health()
		}
		hs = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		if o.OnStop != nil {
			hs.RegisterOnShutdown(o.OnStop)
		}
		if o.TLSCert != "" {
			cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
			if err != nil {
				ul.Close()
				hl.Close()
				return err
			}
			hl = tls.NewListener(hl, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		}
	}

	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	rec := Record{PID: os.Getpid(), Start: now().UTC().Truncate(time.Second), Socket: sock, Root: o.Root}
	if hl != nil {
		rec.Addr = hl.Addr().String()
	}
	if err := writeRecord(o.AnchorDir, rec); err != nil {
		ul.Close()
		if hl != nil {
			hl.Close()
		}
		return err
	}

	// Requests run under runCtx, which outlives ctx by the grace period:
	// a stop finishes what is in flight.
	runCtx, cancelRun := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRun()
	run := o.Run
	if run == nil {
		run = func(_ context.Context, s *broker.Session) int {
			fmt.Fprintln(s.Stderr, "loopx serve: this server does not run commands yet: run loopx without it")
			return 3
		}
	}
	uid := os.Getuid()
	bs := &broker.Server{
		Peer: func(_, puid int) error {
			if puid != uid {
				return fmt.Errorf("uid %d is not the server's (%d)", puid, uid)
			}
			return nil
		},
		Run: run,
		// Keyed commands run once: a client that lost an answer asks the
		// same server again and gets it (kept in memory, bounded).
		Answers:    broker.NewAnswers(),
		DropAnswer: o.DropAnswer,
	}
	done := make(chan error, 2)
	go func() { done <- bs.Serve(runCtx, ul) }()
	if hs != nil {
		go func() {
			if err := hs.Serve(hl); !errors.Is(err, http.ErrServerClosed) {
				done <- err
			}
		}()
	}
	if o.Ready != nil {
		o.Ready(rec)
	}
	ended := false
	select {
	case <-ctx.Done():
	case err = <-done:
		ended = true
	}
	grace := o.Grace
	if grace == 0 {
		grace = 30 * time.Second
	}
	margin := o.StopMargin
	if margin == 0 {
		margin = 5 * time.Second
	}
	timer := time.AfterFunc(grace, cancelRun)
	defer timer.Stop()
	// No new request: the socket's name goes first, so a client that
	// comes now finds no server and runs in its own process; the
	// connections already queued are still taken and answered (closing
	// the listener at once resets them: a command that had connected
	// failed, exit 3), and broker.Serve waits for those in flight.
	_ = os.Remove(sock)
	_ = ul.SetDeadline(time.Now().Add(drainQueued))
	if hs != nil {
		sctx, cancel := context.WithTimeout(context.Background(), grace)
		_ = hs.Shutdown(sctx)
		cancel()
	}
	if !ended {
		// Requests are cancelled at the end of the grace period; one that
		// never returns (a policy step that ignores cancellation) does not
		// keep the server: it stops a little later all the same.
		select {
		case err = <-done:
		case <-time.After(drainQueued + grace + margin):
			err = nil
		}
	}
	ul.Close()
	return err
}

// drainQueued is how long a stopping server still accepts connections
// already queued on its socket (its name removed, no new one can come).
const drainQueued = 50 * time.Millisecond
