package broker

import (
	"fmt"
	"io"
	"net"

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
