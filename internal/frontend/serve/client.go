package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/loopx-dev/loopx/internal/broker"
)

// ErrNotServer is Call's error for a socket whose peer is not the
// recorded server (another pid, another user): the client refuses to
// talk to it.
var ErrNotServer = errors.New("the socket is not the loopx server's")

// Lookup is the record of the project's server when one looks alive, read
// cheaply (no lock taken): the record exists, its pid is alive and its
// socket exists. ok is false otherwise; the client then runs in process.
func Lookup(dir string) (r Record, ok bool) {
	r, err := readRecord(dir)
	if err != nil || r.PID <= 0 {
		return r, false
	}
	if err := syscall.Kill(r.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return r, false
	}
	fi, err := os.Stat(r.Socket)
	return r, err == nil && fi.Mode()&os.ModeSocket != 0
}

// Call forwards req to the server r over its socket and relays its answer
// to stdout and stderr, returning the command's exit code. It first checks
// the peer (SO_PEERCRED): the same uid as this process and pid r.PID,
// else ErrNotServer. The whole call is bounded by timeout (0: none): a
// server that does not answer in time is an error (os.ErrDeadlineExceeded
// wrapped), so a caller never waits on a stuck server (but for a person
// typing at a prompt). ask answers the server's prompts on the caller's
// terminal (nil: none; broker.CallConn).
func Call(r Record, req broker.Request, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer, ask broker.Asker) (int, error) {
	return CallSpawning(r, req, timeout, stdin, stdout, stderr, ask, nil, nil)
}

// CallSpawning is Call for a client that starts the agent's processes for
// the server (req.Spawn; broker.CallConnWith: start, and interrupt closed
// when the person asks it to stop).
func CallSpawning(r Record, req broker.Request, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer, ask broker.Asker, start broker.Starter, interrupt <-chan struct{}) (int, error) {
	d := net.Dialer{Timeout: timeout}
	c, err := d.Dial("unix", r.Socket)
	if err != nil {
		return 0, fmt.Errorf("loopx server at %s: %w", r.Socket, err)
	}
	defer c.Close()
	uc := c.(*net.UnixConn)
	pid, uid, err := broker.PeerOf(uc)
	if err != nil {
		return 0, fmt.Errorf("loopx server at %s: %w", r.Socket, err)
	}
	if uid != os.Getuid() || pid != r.PID {
		return 0, fmt.Errorf("%w: %s is held by pid %d (uid %d), the server is pid %d (uid %d)", ErrNotServer, r.Socket, pid, uid, r.PID, os.Getuid())
	}
	if timeout > 0 {
		_ = uc.SetDeadline(time.Now().Add(timeout))
	}
	return broker.CallConnWith(uc, r.Socket, req, stdin, stdout, stderr, ask, start, interrupt)
}

// ErrAnswerLost is CallKeyed's error when the answer of a keyed command
// was lost and could not be had again: the command may have run, and was
// not run again.
var ErrAnswerLost = errors.New("the answer of the loopx server was lost")

// CallKeyed is Call for a request that carries an idempotency key
// (req.Key): when the connection ends after the request was sent and
// before the exit frame, it asks again once, with the same key, the same
// server (the record in the anchor directory dir still names r's pid and
// start, and the socket's peer is that pid), which answers with what it
// answered the first time and never runs the command again; the output
// the first connection already delivered is not written twice. A server
// gone, another server, or a retry refused is ErrAnswerLost (wrapping no
// connection error, so the caller never runs the command in process; a
// refusal's message is on stderr).
func CallKeyed(dir string, r Record, req broker.Request, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer, ask broker.Asker) (int, error) {
	out, errw := &delivered{w: stdout}, &delivered{w: stderr}
	code, err := Call(r, req, timeout, stdin, out, errw, ask)
	if err == nil || req.Key == "" || !errors.Is(err, broker.ErrAnswerLost) {
		return code, err
	}
	lost := fmt.Errorf("%w (pid %d) after the command was sent (%v): it may have run, and was not run again; see loopx events", ErrAnswerLost, r.PID, err.Error())
	now, ok := Lookup(dir)
	if !ok || now.PID != r.PID || !now.Start.Equal(r.Start) || now.Socket != r.Socket || out.over || errw.over {
		return 0, lost
	}
	req.Retry = true
	var rout, rerr bytes.Buffer
	code, err = Call(now, req, timeout, nil, &rout, &rerr, nil)
	if err != nil {
		return 0, lost
	}
	// The answer given again starts with what the first connection
	// delivered; anything else is the server's refusal.
	if !bytes.HasPrefix(rout.Bytes(), out.buf) || !bytes.HasPrefix(rerr.Bytes(), errw.buf) {
		_, _ = stderr.Write(rerr.Bytes())
		return 0, lost
	}
	_, _ = stdout.Write(rout.Bytes()[len(out.buf):])
	_, _ = stderr.Write(rerr.Bytes()[len(errw.buf):])
	return code, nil
}

// delivered writes to w and keeps what it wrote, up to
// broker.MaxAnswerOutput bytes (over: more went).
type delivered struct {
	w    io.Writer
	buf  []byte
	over bool
}

func (d *delivered) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	if len(d.buf)+n > broker.MaxAnswerOutput {
		d.over = true
	} else {
		d.buf = append(d.buf, p[:n]...)
	}
	return n, err
}
