package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/broker"
	"github.com/loopx-dev/loopx/internal/broker/wire"
	"github.com/loopx-dev/loopx/internal/serveclient"
)

// start runs Serve on dir in the background and returns its record and a
// stop that waits for it to end.
func start(t *testing.T, o Options) (Record, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan Record, 1)
	o.Ready = func(r Record) { ready <- r }
	done := make(chan struct{})
	var serr error
	go func() { serr = Serve(ctx, o); close(done) }()
	select {
	case r := <-ready:
		stop := func() error { cancel(); <-done; return serr }
		t.Cleanup(func() { cancel(); <-done })
		return r, stop
	case <-done:
		cancel()
		t.Fatalf("Serve: %v", serr)
	}
	return Record{}, nil
}

func echo(_ context.Context, s *broker.Session) int {
	b, _ := io.ReadAll(s.Stdin)
	io.WriteString(s.Stdout, strings.Join(s.Request.Argv, " ")+":"+string(b))
	io.WriteString(s.Stderr, "err")
	return 7
}

func TestLifecycle(t *testing.T) {
	dir := t.TempDir()
	if _, err := Status(dir); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Status before: %v", err)
	}
	rec, stop := start(t, Options{AnchorDir: dir, Root: "/p", Addr: "127.0.0.1:0", Run: echo})
	if rec.PID != os.Getpid() || rec.Socket != filepath.Join(dir, SocketName) || rec.Addr == "" {
		t.Fatalf("record %+v", rec)
	}
	got, err := Status(dir)
	if err != nil || got != rec {
		t.Fatalf("Status = %+v, %v; want %+v", got, err, rec)
	}
	fi, err := os.Stat(filepath.Join(dir, RecordName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record file: %v %v", fi, err)
	}
	// A second server on the project names the first.
	err = Serve(context.Background(), Options{AnchorDir: dir})
	var re *RunningError
	if !errors.As(err, &re) || re.Record.PID != rec.PID || re.Record.Socket != rec.Socket {
		t.Fatalf("second Serve: %v", err)
	}
	// The socket runs a forwarded command.
	var out, errb bytes.Buffer
	code, err := broker.Call(rec.Socket, wire.Request{V: wire.Version, Argv: []string{"a", "b"}, Cwd: "/"}, strings.NewReader("in"), &out, &errb)
	if err != nil || code != 7 || out.String() != "a b:in" || errb.String() != "err" {
		t.Fatalf("Call = %d, %v, %q, %q", code, err, out.String(), errb.String())
	}
	// HTTP: /health and a JSON 404.
	resp, err := http.Get("http://" + rec.Addr + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"status":"ok"`) {
		t.Fatalf("/health: %d %s", resp.StatusCode, body)
	}
	resp, err = http.Get("http://" + rec.Addr + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("/nope: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if err := stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	for _, n := range []string{RecordName, SocketName} {
		if _, err := os.Lstat(filepath.Join(dir, n)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after stop: %v", n, err)
		}
	}
	if _, err := Status(dir); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Status after: %v", err)
	}
}

// A record whose server is gone (the lock is free) is not a server: it
// is removed, and a new server starts.
func TestStaleRecord(t *testing.T) {
	dir := t.TempDir()
	if err := writeRecord(dir, Record{PID: 1, Socket: filepath.Join(dir, SocketName)}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, SocketName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Status(dir); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Status: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, RecordName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale record kept: %v", err)
	}
	rec, _ := start(t, Options{AnchorDir: dir})
	if rec.PID != os.Getpid() {
		t.Fatalf("record %+v", rec)
	}
}

// An anchor directory too long for sun_path gets its socket in a short,
// private directory, recorded, and removed on exit.
func TestLongAnchorSocket(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("p", 100)+"-0123456789abcdef")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	rec, stop := start(t, Options{AnchorDir: dir})
	if len(rec.Socket) > maxSocketPath() || strings.HasPrefix(rec.Socket, dir) {
		t.Fatalf("socket %s", rec.Socket)
	}
	if err := checkPrivateDir(filepath.Dir(rec.Socket)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := broker.Call(rec.Socket, wire.Request{V: wire.Version, Cwd: "/"}, nil, &out, &out); err != nil {
		t.Fatalf("Call: %v", err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Dir(rec.Socket)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("short directory kept: %v", err)
	}
}

func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		addr   string
		remote bool
		ok     bool
	}{{"127.0.0.1:0", false, true}, {"[::1]:8080", false, true}, {"localhost:1", false, true},
		{"0.0.0.0:80", false, false}, {"10.0.0.1:80", true, true}, {"nonsense", false, false}} {
		cert := ""
		if c.remote {
			cert = "c.pem"
		}
		if err := CheckAddr(c.addr, c.remote, cert, cert); (err == nil) != c.ok {
			t.Errorf("CheckAddr(%q, %v) = %v", c.addr, c.remote, err)
		}
	}
	if err := CheckAddr("0.0.0.0:80", true, "", ""); !errors.Is(err, ErrRemote) {
		t.Errorf("remote without TLS: %v", err)
	}
}

// Requests in flight when the server is told to stop finish.
func TestStopFinishesInFlight(t *testing.T) {
	dir := t.TempDir()
	started := make(chan struct{})
	slow := func(ctx context.Context, s *broker.Session) int {
		stdout := s.Stdout
		close(started)
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return 3
		}
		io.WriteString(stdout, "done")
		return 0
	}
	rec, stop := start(t, Options{AnchorDir: dir, Run: slow})
	type res struct {
		code int
		out  string
		err  error
	}
	got := make(chan res, 1)
	go func() {
		var out bytes.Buffer
		code, err := broker.Call(rec.Socket, wire.Request{V: wire.Version, Cwd: "/"}, nil, &out, io.Discard)
		got <- res{code, out.String(), err}
	}()
	<-started
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r.err != nil || r.code != 0 || r.out != "done" {
		t.Fatalf("in flight: %+v", r)
	}
}

// The client checks the socket's peer: a socket another process listens
// on at the recorded path is refused.
func TestCallRefusesAnotherPeer(t *testing.T) {
	dir := t.TempDir()
	rec, _ := start(t, Options{AnchorDir: dir, Run: echo})
	forged := rec
	forged.PID = rec.PID + 1 // the record names another pid than the socket's holder
	_, err := Call(forged, wire.Request{V: wire.Version, Cwd: "/"}, time.Second, nil, io.Discard, io.Discard, nil)
	if !errors.Is(err, ErrNotServer) {
		t.Fatalf("Call with another pid: %v", err)
	}
	var out bytes.Buffer
	code, err := Call(rec, wire.Request{V: wire.Version, Argv: []string{"x"}, Cwd: "/"}, time.Second, nil, &out, io.Discard, nil)
	if err != nil || code != 7 || out.String() != "x:" {
		t.Fatalf("Call = %d, %v, %q", code, err, out.String())
	}
}

// A server that accepts and never answers fails the call at its deadline.
func TestCallStuckServer(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, SocketName)
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	rec := Record{PID: os.Getpid(), Socket: sock}
	if _, ok := Lookup(dir); ok {
		t.Fatal("Lookup found a server without a record")
	}
	if err := writeRecord(dir, rec); err != nil {
		t.Fatal(err)
	}
	if _, ok := Lookup(dir); !ok {
		t.Fatal("Lookup missed the recorded server")
	}
	_, err = Call(rec, wire.Request{V: wire.Version, Cwd: "/"}, 200*time.Millisecond, nil, io.Discard, io.Discard, nil)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Call to a stuck server: %v", err)
	}
}

// A server given no Run runs nothing: every request exits 3 and says so.
func TestNoRunRunsNothing(t *testing.T) {
	rec, _ := start(t, Options{AnchorDir: t.TempDir()})
	var out, errb bytes.Buffer
	code, err := Call(rec, wire.Request{V: wire.Version, Argv: []string{"version"}, Cwd: "/"}, time.Second, nil, &out, &errb, nil)
	if err != nil || code != 3 || out.Len() != 0 || !strings.Contains(errb.String(), "does not run commands") {
		t.Fatalf("Call = %d, %v, %q, %q", code, err, out.String(), errb.String())
	}
}

// A request that ignores its cancellation does not keep a stopping
// server: it returns once the grace period and the margin have passed.
func TestStopDoesNotWaitForeverForAStuckRequest(t *testing.T) {
	dir := t.TempDir()
	started := make(chan struct{})
	never := make(chan struct{})
	defer close(never)
	stuck := func(context.Context, *broker.Session) int {
		close(started)
		<-never
		return 0
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan Record, 1)
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, Options{AnchorDir: dir, Run: stuck, Grace: 50 * time.Millisecond, StopMargin: 50 * time.Millisecond,
			Ready: func(r Record) { ready <- r }})
	}()
	rec := <-ready
	go func() {
		_, _ = broker.Call(rec.Socket, wire.Request{V: wire.Version, Cwd: "/"}, nil, io.Discard, io.Discard)
	}()
	<-started
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve still waits for a request that never ends")
	}
}

// Commands probe the lock (Status takes it for an instant when no server
// runs): a server starting at that instant waits the probe out instead of
// refusing as if another server ran; a second server beside a running one
// still names it at once.
func TestStartsWhileProbed(t *testing.T) {
	dir := t.TempDir()
	f, held, err := lock(dir) // the probe, caught holding the lock
	if err != nil || held {
		t.Fatalf("lock: %v %v", held, err)
	}
	go func() { time.Sleep(50 * time.Millisecond); f.Close() }()
	rec, _ := start(t, Options{AnchorDir: dir})
	began := time.Now()
	err = Serve(context.Background(), Options{AnchorDir: dir})
	var re *RunningError
	if !errors.As(err, &re) || re.Record.PID != rec.PID || time.Since(began) > probeGrace/2 {
		t.Fatalf("second Serve: %v after %s", err, time.Since(began))
	}
}

// TestStopAnswersEveryConnection: clients that connect while the server
// stops are answered, or find no server (a dial failure: they run in
// their own process) — never a connection reset after they connected,
// which a command reported as a lost answer (exit 3).
func TestStopAnswersEveryConnection(t *testing.T) {
	dir := t.TempDir()
	brief := func(_ context.Context, s *broker.Session) int {
		time.Sleep(time.Millisecond)
		io.WriteString(s.Stdout, "ok")
		return 0
	}
	rec, stop := start(t, Options{AnchorDir: dir, Run: brief})
	const clients = 16
	errc := make(chan error, clients)
	var answered [clients]int
	for i := range clients {
		go func() {
			for {
				var out bytes.Buffer
				code, err := Call(rec, wire.Request{V: wire.Version, Cwd: "/"}, 5*time.Second, nil, &out, io.Discard, nil)
				switch {
				case err != nil && serveclient.DialFailed(err):
					errc <- nil
					return
				case err != nil:
					errc <- fmt.Errorf("client %d after %d answers: %v", i, answered[i], err)
					return
				case code != 0 || out.String() != "ok":
					errc <- fmt.Errorf("client %d: exit %d %q", i, code, out.String())
					return
				}
				answered[i]++
			}
		}()
	}
	time.Sleep(100 * time.Millisecond)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for range clients {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}

// A held server lock with no record is a server starting or stopping:
// Status says so, and it is still "not running" to every caller that
// only asks that.
func TestStatusStartingOrStopping(t *testing.T) {
	dir := t.TempDir()
	lk, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Status(dir)
	if !errors.Is(err, ErrStartingOrStopping) || !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Status with the lock held and no record: %v", err)
	}
	lk.Close()
	if _, err := Status(dir); !errors.Is(err, ErrNotRunning) || errors.Is(err, ErrStartingOrStopping) {
		t.Fatalf("Status with the lock free: %v", err)
	}
}
