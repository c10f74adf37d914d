// Package serveclient is the client's side of `loopx serve` that needs
// nothing heavy: the server's record in the project's anchor directory,
// whether it looks alive, a keyed call that asks again once for a lost
// answer, and (on Linux) a dial of the server's socket with plain system
// calls. It imports only light packages of the standard library and
// internal/broker/wire, so that a loopx process can forward its command
// before the rest of the program is initialised
// (cmd/loopx/internal/early); internal/frontend/serve builds on it.
package serveclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/loopx-dev/loopx/internal/broker/wire"
)

// RecordName is the server's record in the anchor directory (JSON, 0600).
const RecordName = "serve.json"

// Record is what a running server writes in the anchor directory
// (RecordName) and removes on exit.
type Record struct {
	// PID is the server's process id; clients check it against the
	// socket's peer (SO_PEERCRED).
	PID int `json:"pid"`
	// Start is when the server started (RFC 3339).
	Start time.Time `json:"start"`
	// Socket is the unix socket's absolute path.
	Socket string `json:"socket"`
	// Addr is the HTTP address (host:port) it listens on, "" when none.
	Addr string `json:"addr,omitempty"`
	// Root is the project's root directory.
	Root string `json:"root"`
}

// ReadRecord reads dir/RecordName. Errors: os.ErrNotExist when absent,
// a decoding error when malformed.
func ReadRecord(dir string) (Record, error) {
	var r Record
	b, err := os.ReadFile(dir + "/" + RecordName)
	if err != nil {
		return r, err
	}
	err = json.Unmarshal(b, &r)
	return r, err
}

// Lookup is the record of the project's server when one looks alive, read
// cheaply (no lock taken): the record exists, its pid is alive and its
// socket exists. ok is false otherwise; the client then runs in process.
func Lookup(dir string) (r Record, ok bool) {
	r, err := ReadRecord(dir)
	if err != nil || r.PID <= 0 {
		return r, false
	}
	if err := syscall.Kill(r.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return r, false
	}
	fi, err := os.Stat(r.Socket)
	return r, err == nil && fi.Mode()&os.ModeSocket != 0
}

// ErrNotServer is a call's error for a socket whose peer is not the
// recorded server (another pid, another user): the client refuses to
// talk to it.
var ErrNotServer = errors.New("the socket is not the loopx server's")

// ErrAnswerLost is CallKeyed's error when the answer of a keyed command
// was lost and could not be had again: the command may have run, and was
// not run again.
var ErrAnswerLost = errors.New("the answer of the loopx server was lost")

// CallFunc forwards req to the server r and relays its answer, bounded by
// timeout (internal/frontend/serve.Call; Call here on Linux).
type CallFunc func(r Record, req wire.Request, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer, ask wire.Asker) (int, error)

// CallKeyed is call for a request that carries an idempotency key
// (req.Key): when the connection ends after the request was sent and
// before the exit frame, it asks again once, with the same key, the same
// server (the record in the anchor directory dir still names r's pid and
// start, and the socket's peer is that pid), which answers with what it
// answered the first time and never runs the command again; the output
// the first connection already delivered is not written twice. A server
// gone, another server, or a retry refused is ErrAnswerLost (wrapping no
// connection error, so the caller never runs the command in process; a
// refusal's message is on stderr).
func CallKeyed(dir string, r Record, req wire.Request, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer, ask wire.Asker, call CallFunc) (int, error) {
	out, errw := &delivered{w: stdout}, &delivered{w: stderr}
	code, err := call(r, req, timeout, stdin, out, errw, ask)
	if err == nil || req.Key == "" || !errors.Is(err, wire.ErrAnswerLost) || errors.Is(err, ErrServerStopped) {
		// (A stopped server would not answer a second time either.)
		return code, err
	}
	lost := fmt.Errorf("%w (pid %d) after the command was sent (%v): it may have run, and was not run again; see loopx events", ErrAnswerLost, r.PID, err.Error())
	now, ok := Lookup(dir)
	if !ok || now.PID != r.PID || !now.Start.Equal(r.Start) || now.Socket != r.Socket || out.over || errw.over {
		return 0, lost
	}
	req.Retry = true
	var rout, rerr bytesBuffer
	code, err = call(now, req, timeout, nil, &rout, &rerr, nil)
	if err != nil {
		return 0, lost
	}
	// The answer given again starts with what the first connection
	// delivered; anything else is the server's refusal.
	if !hasPrefix(rout, out.buf) || !hasPrefix(rerr, errw.buf) {
		_, _ = stderr.Write(rerr)
		return 0, lost
	}
	_, _ = stdout.Write(rout[len(out.buf):])
	_, _ = stderr.Write(rerr[len(errw.buf):])
	return code, nil
}

// bytesBuffer is an append-only writer (bytes.Buffer's Write, without
// the package).
type bytesBuffer []byte

func (b *bytesBuffer) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

func hasPrefix(s, prefix []byte) bool {
	return len(s) >= len(prefix) && string(s[:len(prefix)]) == string(prefix)
}

// delivered writes to w and keeps what it wrote, up to
// wire.MaxAnswerOutput bytes (over: more went).
type delivered struct {
	w    io.Writer
	buf  []byte
	over bool
}

func (d *delivered) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	if len(d.buf)+n > wire.MaxAnswerOutput {
		d.over = true
	} else {
		d.buf = append(d.buf, p[:n]...)
	}
	return n, err
}

// ServerError says what went wrong with the server r in words: it did
// not answer within timeout, or err.
func ServerError(r Record, timeout time.Duration, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("the loopx server (pid %d) did not answer within %s; see `loopx serve status`, or stop it with `loopx serve stop`", r.PID, timeout)
	}
	return err
}

// DialFailed reports whether err is a connection that never started (a
// server that just stopped): the command then runs in process, where the
// store's lock says whether it may.
func DialFailed(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}
