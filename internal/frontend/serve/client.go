package serve

import (
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
	return broker.CallConn(uc, r.Socket, req, stdin, stdout, stderr, ask)
}
