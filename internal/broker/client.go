package broker

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"

	"github.com/loopx-dev/loopx/internal/broker/wire"
)

// Call sends req to the broker listening on socket, streams stdin to it
// (nil: none) and copies the answer's frames to stdout and stderr; it
// returns the command's exit code. A prompt is answered "no terminal".
// Errors: the socket cannot be reached, or the answer ended before its
// exit frame (the caller exits 3).
func Call(socket string, req wire.Request, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return 0, fmt.Errorf("loopx broker at %s: %w", socket, err)
	}
	defer conn.Close()
	return wire.CallConn(conn.(*net.UnixConn), socket, req, stdin, stdout, stderr, nil)
}

// PeerOf is the process at conn's other end as the kernel names it
// (SO_PEERCRED on Linux): its pid and uid.
func PeerOf(conn *net.UnixConn) (pid, uid int, err error) { return peer(conn) }

// ErrNotBroker is CallOutside's error for a socket whose peer is not a
// confinement's broker.
var ErrNotBroker = errors.New("the socket is not a confinement's loopx broker")

// CallOutside is Call for a loopx inside a confinement: before it sends
// anything it checks the socket's peer, a process of this user outside
// this process's PID namespace — a confinement runs in a namespace of its
// own, and its broker where it was made, so the kernel names the broker
// pid 0 here (SO_PEERCRED; on Linux, where confinements are made). A
// socket a process beside this one listens on ($LOOPX_BROKER, or a
// /run/loopx/broker.sock anyone could make outside a confinement) is
// refused (ErrNotBroker): it would answer every command, hooks included.
func CallOutside(socket string, req wire.Request, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return 0, fmt.Errorf("loopx broker at %s: %w", socket, err)
	}
	defer conn.Close()
	uc := conn.(*net.UnixConn)
	pid, uid, err := PeerOf(uc)
	if err != nil {
		return 0, fmt.Errorf("loopx broker at %s: %w", socket, err)
	}
	if uid != os.Getuid() || (runtime.GOOS == "linux" && pid != 0) {
		return 0, fmt.Errorf("%w: %s is held by pid %d (uid %d), a process this one can see: loopx runs in a confinement only when `loopx run` made it", ErrNotBroker, socket, pid, uid)
	}
	return wire.CallConn(uc, socket, req, stdin, stdout, stderr, nil)
}
