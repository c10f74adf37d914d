package broker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loopx-dev/loopx/internal/broker/wire"
)

// Server runs the requests of one confinement's loopx commands as loopx
// processes outside it, with an identity the server fixes.
type Server struct {
	// Exe is the loopx executable each request runs (absolute).
	Exe string
	// Dir is the work tree: a request's Cwd outside it runs in Dir.
	Dir string
	// Env is every request's environment but the request's PassedEnv
	// values (which replace Env's own): who the caller is (LOOPX_ROUND,
	// LOOPX_AGENT, …) is set here and nowhere else.
	Env []string
	// Peer checks the connecting process, as the kernel names it
	// (SO_PEERCRED: its pid in this process's namespace, its uid); an
	// error refuses the request (exit 1, the error on its stderr). Nil
	// refuses every request.
	Peer func(pid, uid int) error
	// Run, when set, runs each request in place of a process of Exe (the
	// session's request, its peer's pid as Peer was given it, its
	// standard streams, and Ask for a prompt on the client's terminal); it
	// returns the exit code. ctx is cancelled when the client goes away.
	// Dir and Env are then unused: Run takes what it needs from the peer.
	Run func(ctx context.Context, s *Session) int
	// Answers, when set, keeps the answers of keyed requests (Request.Key)
	// a Run runs: a key is run once, a retry gets the first answer, and a
	// keyed command goes on when its client goes away (its answer is kept
	// for the retry). Nil runs every request, key or not, and refuses
	// retries.
	Answers *Answers
	// DropAnswer, when set, is asked after a keyed command ran and its
	// answer was kept: true ends the connection without the exit frame,
	// as a connection lost at that instant would (tests only).
	DropAnswer func(s *Session) bool
}

// Serve answers connections on l until l is closed, its deadline passes
// (l.SetDeadline: the connections queued before it are still answered)
// or ctx is done (then the commands still running are killed); it
// returns nil then, once the requests in flight have ended.
func (s *Server) Serve(ctx context.Context, l *net.UnixListener) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	for {
		conn, err := l.AcceptUnix()
		if err != nil {
			// A deadline set on l is its owner's way to stop taking
			// connections once the queued ones are taken (a stopping
			// server drains its queue: closing l would reset them).
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrDeadlineExceeded) {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			s.handle(ctx, conn)
		}()
	}
}

// frames writes one stream's output as frames of its kind.
type frames struct {
	mu   *sync.Mutex
	w    io.Writer
	kind byte
}

func (f frames) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for len(p) > 0 {
		c := min(len(p), wire.MaxFrame)
		if err := wire.WriteFrame(f.w, f.kind, p[:c]); err != nil {
			return n, err
		}
		n, p = n+c, p[c:]
	}
	return n, nil
}

// Session is one request a Server.Run runs.
type Session struct {
	// PID is the client's process id (SO_PEERCRED, in the server's pid
	// namespace).
	PID int
	// Request is the request's header.
	Request wire.Request
	// Stdin is the client's standard input; Stdout and Stderr go back to
	// the client as frames.
	Stdin          io.Reader
	Stdout, Stderr io.Writer

	mu      *sync.Mutex // guards writes to conn
	conn    *net.UnixConn
	replies chan wire.Reply
	spawned chan wire.Spawned
	done    chan wire.Done
	handle  int // a pidfd of the peer, -1 when none
}

// ErrNoSpawn is Spawn's error when the client does not start processes
// (its request did not say Spawn) or went away.
var ErrNoSpawn = errors.New("the client does not start the command")

// Spawn has the client start argv in dir with env (FrameSpawn): a
// process of the client's, in a process group of its own, its output the
// client's standard error. It returns the process id the client names
// (in its pid namespace: the server's, for a client outside any
// sandbox) and wait, which returns the command's exit code (-1 for a
// signal) once the client says it ended; when ctx is done first, wait
// has the client stop it (FrameKill: SIGTERM to its group, then SIGKILL)
// and still waits for its end. Errors: ErrNoSpawn (wrapped), the
// client's reason it did not start.
func (s *Session) Spawn(ctx context.Context, argv, env []string, dir string) (pid int, wait func() (int, error), err error) {
	if !s.Request.Spawn {
		return 0, nil, ErrNoSpawn
	}
	b, _ := json.Marshal(wire.Spawn{Argv: argv, Env: env, Dir: dir})
	s.mu.Lock()
	err = wire.WriteFrame(s.conn, wire.FrameSpawn, b)
	s.mu.Unlock()
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %v", ErrNoSpawn, err)
	}
	sp, ok := <-s.spawned
	switch {
	case !ok:
		return 0, nil, fmt.Errorf("%w: the client went away", ErrNoSpawn)
	case sp.Error != "":
		return 0, nil, errors.New(sp.Error)
	case sp.PID <= 0:
		return 0, nil, fmt.Errorf("%w: the client named no process", ErrNoSpawn)
	}
	wait = func() (int, error) {
		select {
		case d, ok := <-s.done:
			return doneOf(d, ok)
		case <-ctx.Done():
		}
		s.mu.Lock()
		_ = wire.WriteFrame(s.conn, wire.FrameKill, nil)
		s.mu.Unlock()
		d, ok := <-s.done
		return doneOf(d, ok)
	}
	return sp.PID, wait, nil
}

func doneOf(d wire.Done, ok bool) (int, error) {
	switch {
	case !ok:
		return -1, fmt.Errorf("%w: the client went away", ErrNoSpawn)
	case d.Error != "":
		return -1, errors.New(d.Error)
	}
	return d.Code, nil
}

// PeerAlive reports whether the client process that connected still runs
// (on Linux through a pidfd taken when it connected, so a pid reused
// since is not it). A Run reads the peer's facts from /proc by pid, then
// asks PeerAlive: true means the facts were the client's.
func (s *Session) PeerAlive() bool { return handleAlive(s.handle) }

// ErrNoTerminal is Ask's error when the client has no terminal to ask on
// (its reason wrapped) or went away.
var ErrNoTerminal = errors.New("the client has no terminal")

// Ask shows text on the client's controlling terminal and returns the
// line typed there. Errors: ErrNoTerminal (wrapped), ctx's.
func (s *Session) Ask(ctx context.Context, text string) (string, error) {
	b, _ := json.Marshal(wire.Prompt{Text: text})
	s.mu.Lock()
	err := wire.WriteFrame(s.conn, wire.FramePrompt, b)
	s.mu.Unlock()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoTerminal, err)
	}
	select {
	case r, ok := <-s.replies:
		switch {
		case !ok:
			return "", fmt.Errorf("%w: the client went away", ErrNoTerminal)
		case r.Error != "":
			return "", fmt.Errorf("%w: %s", ErrNoTerminal, r.Error)
		}
		return r.Typed, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// demux reads the client's frames after the header: standard input into
// in (kept until the command reads it, so a command that reads none never
// stops the replies behind it), replies into s.replies. The connection's
// end before the client said its input ended, or any frame the server
// does not take, ends the session (cancel).
func (s *Session) demux(r io.Reader, in *inbox, cancel context.CancelFunc) {
	defer close(s.replies)
	defer close(s.spawned)
	defer close(s.done)
	for {
		kind, payload, err := wire.ReadFrame(r)
		if err != nil {
			in.close(io.ErrUnexpectedEOF)
			cancel()
			return
		}
		switch kind {
		case wire.FrameStdin:
			if !in.put(payload) {
				in.close(fmt.Errorf("standard input over %d bytes", maxInbox))
				cancel()
				return
			}
		case wire.FrameStdinEnd:
			in.close(io.EOF)
		case wire.FrameSpawned:
			deliver(s.spawned, payload, wire.Spawned{Error: "a malformed spawned frame"})
		case wire.FrameDone:
			deliver(s.done, payload, wire.Done{Code: -1, Error: "a malformed done frame"})
		case wire.FrameInterrupt:
			cancel()
		case wire.FrameReply:
			deliver(s.replies, payload, wire.Reply{Error: "a malformed reply"})
		default:
			in.close(io.ErrUnexpectedEOF)
			cancel()
			return
		}
	}
}

// deliver decodes a client's answer frame (spawned, done, reply) into a T,
// bad when it does not decode, and hands it to the one waiting for it on
// ch; with nobody waiting it is dropped (an answer nobody asked for).
func deliver[T any](ch chan T, payload []byte, bad T) {
	var v T
	if json.Unmarshal(payload, &v) != nil {
		v = bad
	}
	select {
	case ch <- v:
	default:
	}
}

// maxInbox bounds the standard input a session keeps unread, in bytes.
const maxInbox = 256 << 20

// inbox is a session's standard input: what the client sent, kept until
// the command reads it, then the end (io.EOF, or why it was cut).
type inbox struct {
	mu   sync.Mutex
	cond *sync.Cond
	buf  []byte
	end  error
	// want asks the client for its input (wire.FrameStdinWant), once,
	// at the first Read: a client sends none before.
	want     func()
	wantOnce sync.Once
}

func newInbox(want func()) *inbox {
	in := &inbox{want: want}
	in.cond = sync.NewCond(&in.mu)
	return in
}

// put keeps p; false when the inbox would exceed maxInbox.
func (in *inbox) put(p []byte) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.end != nil {
		return true // input after its end: dropped
	}
	if len(in.buf)+len(p) > maxInbox {
		return false
	}
	in.buf = append(in.buf, p...)
	in.cond.Broadcast()
	return true
}

// close ends the input with err (the first end wins).
func (in *inbox) close(err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.end == nil {
		in.end = err
	}
	in.cond.Broadcast()
}

// Read reads what the client sent, waiting for more until its end; the
// first Read asks the client for it.
func (in *inbox) Read(p []byte) (int, error) {
	if in.want != nil {
		in.wantOnce.Do(in.want)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for len(in.buf) == 0 && in.end == nil {
		in.cond.Wait()
	}
	if len(in.buf) == 0 {
		return 0, in.end
	}
	n := copy(p, in.buf)
	in.buf = in.buf[n:]
	return n, nil
}

func (s *Server) handle(ctx context.Context, conn *net.UnixConn) {
	mu := &sync.Mutex{}
	stderr := frames{mu, conn, wire.FrameStderr}
	exit := func(code int) {
		b, _ := json.Marshal(wire.Exit{Code: code})
		mu.Lock()
		defer mu.Unlock()
		_ = wire.WriteFrame(conn, wire.FrameExit, b)
	}
	pid, uid, err := peer(conn)
	if err == nil {
		if s.Peer == nil {
			err = errors.New("this broker serves no one")
		} else {
			err = s.Peer(pid, uid)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopx broker: refused: %v\n", err)
		exit(1)
		return
	}
	br := bufio.NewReader(conn)
	req, err := ReadRequest(br)
	if err != nil {
		fmt.Fprintf(stderr, "loopx broker: %v\n", err)
		exit(2)
		return
	}
	if req.DeadlineMS > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(req.DeadlineMS)*time.Millisecond)
		defer cancel()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in := newInbox(func() {
		mu.Lock()
		defer mu.Unlock()
		_ = wire.WriteFrame(conn, wire.FrameStdinWant, nil)
	})
	defer in.close(io.ErrClosedPipe)
	sess := &Session{PID: pid, Request: req, Stdin: in, Stdout: frames{mu, conn, wire.FrameStdout}, Stderr: stderr,
		mu: mu, conn: conn, replies: make(chan wire.Reply, 1), spawned: make(chan wire.Spawned, 1), done: make(chan wire.Done, 1), handle: peerHandle(conn, pid)}
	defer closeHandle(sess.handle)
	if s.Run != nil && req.Key != "" && s.Answers != nil {
		owner := proc{pid, procStart(pid)}
		a, fresh := s.Answers.begin(req, owner)
		switch {
		case a == nil:
			fmt.Fprintf(stderr, "loopx server: no answer is kept for this command (key %s): it is not run again; see loopx events for what it did\n", req.Key)
			exit(3)
			return
		case !fresh:
			go sess.demux(br, in, cancel)
			write := func(kind byte, p []byte) error {
				_, err := frames{mu, conn, kind}.Write(p)
				return err
			}
			exit(s.Answers.replay(ctx, a, owner, req, write, stderr))
			return
		}
		// The command goes on when its client goes away: its answer is
		// kept for the client's retry.
		sess.Stdout = recording{s.Answers, a, frames{mu, conn, wire.FrameStdout}, wire.FrameStdout}
		sess.Stderr = recording{s.Answers, a, stderr, wire.FrameStderr}
		go sess.demux(br, in, func() {})
		code := s.Run(ctx, sess)
		s.Answers.finish(a, code)
		if s.DropAnswer != nil && s.DropAnswer(sess) {
			return
		}
		exit(code)
		return
	}
	if req.Retry {
		fmt.Fprintf(stderr, "loopx server: this server keeps no answers: the command (key %s) is not run again\n", req.Key)
		exit(3)
		return
	}
	go sess.demux(br, in, cancel)
	if s.Run != nil {
		exit(s.Run(ctx, sess))
		return
	}
	cmd := exec.CommandContext(ctx, s.Exe, req.Argv...)
	cmd.Dir = s.Dir
	if rel, err := filepath.Rel(s.Dir, req.Cwd); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		cmd.Dir = req.Cwd
	}
	cmd.Env = s.env(req.Env)
	cmd.Stdout, cmd.Stderr = frames{mu, conn, wire.FrameStdout}, stderr
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopx broker: %v\n", err)
		exit(3)
		return
	}
	go func() {
		_, _ = io.Copy(stdin, in)
		stdin.Close()
	}()
	err = cmd.Wait()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		code = ee.ExitCode()
	case err != nil:
		fmt.Fprintf(stderr, "loopx broker: %v\n", err)
		code = 3
	}
	exit(code)
}

// env is Env with the request's passed variables in place of Env's own.
func (s *Server) env(passed map[string]string) []string {
	var env []string
	for _, kv := range s.Env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := passed[k]; !ok {
			env = append(env, kv)
		}
	}
	for _, k := range wire.PassedEnv {
		if v, ok := passed[k]; ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// DescendsFrom reports whether process pid is ancestor or one of its
// descendants, walking the parent links (parentOf: /proc/PID/stat on
// Linux, as this process's pid namespace names them) up to init.
func DescendsFrom(pid, ancestor int) bool {
	for i := 0; pid > 1 && i < 4096; i++ {
		if pid == ancestor {
			return true
		}
		ppid, err := parentOf(pid)
		if err != nil {
			return false
		}
		pid = ppid
	}
	return pid == ancestor
}
