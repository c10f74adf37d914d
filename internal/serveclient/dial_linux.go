package serveclient

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/loopx-dev/loopx/internal/broker/wire"
)

// ErrNotSent wraps Call's error when nothing reached the server (the
// socket could not be dialled, or its peer is not the server): the
// command may be run another way.
var ErrNotSent = errors.New("nothing was sent")

// Call is internal/frontend/serve.Call with plain system calls in place
// of package net: it dials r.Socket (a non-blocking connect that does not
// wait for a full backlog), checks the peer (SO_PEERCRED: this uid and
// r.PID running this program, SameProgram; else ErrNotServer), bounds the whole call by timeout (0: none)
// and relays the answer (wire.CallConn). Errors before the request went
// wrap ErrNotSent.
func Call(r Record, req wire.Request, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer, ask wire.Asker) (int, error) {
	f, err := Dial(r)
	if err != nil {
		return 0, err
	}
	return CallOn(f, r, req, timeout, stdin, stdout, stderr, ask)
}

// Dial connects to r.Socket and checks that its peer is the server
// (Call's first half). Errors wrap ErrNotSent.
func Dial(r Record) (*os.File, error) {
	f, err := dial(r)
	if err != nil {
		return nil, fmt.Errorf("%w: loopx server at %s: %w", ErrNotSent, r.Socket, err)
	}
	return f, nil
}

// CallOn is Call's second half over f, which Dial connected to the server
// r: the call is bounded by timeout from now (0: none), and a call with a
// timeout ends sooner, with ErrServerStopped, when the server stays
// stopped (WatchStopped); f is closed when it returns.
func CallOn(f *os.File, r Record, req wire.Request, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer, ask wire.Asker) (int, error) {
	defer f.Close()
	if timeout <= 0 {
		return wire.CallConn(sockFile{f, r.Socket}, r.Socket, req, stdin, stdout, stderr, ask)
	}
	_ = f.SetDeadline(time.Now().Add(timeout))
	watched := WatchStopped(r.PID, f.SetDeadline)
	code, err := wire.CallConn(sockFile{f, r.Socket}, r.Socket, req, stdin, stdout, stderr, ask)
	if watched() && err != nil {
		return code, Stopped(r.PID)
	}
	return code, err
}

// sockFile is a connected socket's file whose read and write errors say
// what package net's would (net.OpError's text: "read unix @->SOCKET:
// read: connection reset by peer"), wrapping the same error, so that a
// call says the same whichever way it dialled.
type sockFile struct {
	*os.File
	socket string
}

func (s sockFile) Read(p []byte) (int, error) {
	n, err := s.File.Read(p)
	return n, s.wrap("read", err)
}

func (s sockFile) Write(p []byte) (int, error) {
	n, err := s.File.Write(p)
	return n, s.wrap("write", err)
}

func (s sockFile) wrap(op string, err error) error {
	var pe *os.PathError
	if err == nil || !errors.As(err, &pe) {
		return err // io.EOF among them
	}
	text := pe.Err.Error()
	if _, ok := pe.Err.(syscall.Errno); ok {
		text = op + ": " + text
	}
	return &connError{text: op + " unix @->" + s.socket + ": " + text, err: pe.Err}
}

// connError is a socket's read or write error as package net words it.
type connError struct {
	text string
	err  error
}

func (e *connError) Error() string { return e.text }
func (e *connError) Unwrap() error { return e.err }

// dial connects to r.Socket and checks its peer; the file it returns
// uses the runtime's poller (deadlines work).
func dial(r Record) (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: r.Socket}); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("connect", err)
	}
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("SO_PEERCRED: %w", err)
	}
	if int(cred.Uid) != os.Getuid() || int(cred.Pid) != r.PID {
		syscall.Close(fd)
		return nil, fmt.Errorf("%w: %s is held by pid %d (uid %d), the server is pid %d (uid %d)", ErrNotServer, r.Socket, cred.Pid, cred.Uid, r.PID, os.Getuid())
	}
	if err := SameProgram(r.PID); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), r.Socket), nil
}
