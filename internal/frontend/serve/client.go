package serve

import (
	"fmt"
	"github.com/loopx-dev/loopx/internal/broker/wire"
	"io"
	"net"
	"os"
	"time"

	"github.com/loopx-dev/loopx/internal/broker"
	"github.com/loopx-dev/loopx/internal/serveclient"
)

// ErrNotServer is Call's error for a socket whose peer is not the
// recorded server (another pid, another user): the client refuses to
// talk to it.
var ErrNotServer = serveclient.ErrNotServer

// Lookup is the record of the project's server when one looks alive, read
// cheaply (no lock taken): serveclient.Lookup.
func Lookup(dir string) (r Record, ok bool) { return serveclient.Lookup(dir) }

// Call forwards req to the server r over its socket and relays its answer
// to stdout and stderr, returning the command's exit code. It first checks
// the peer (SO_PEERCRED): the same uid as this process and pid r.PID,
// running this program's file (serveclient.SameProgram), else
// ErrNotServer. The whole call is bounded by timeout (0: none): a
// server that does not answer in time is an error (os.ErrDeadlineExceeded
// wrapped), so a caller never waits on a stuck server (but for a person
// typing at a prompt); one that stays stopped by a signal ends the call
// sooner (serveclient.WatchStopped, serveclient.ErrServerStopped). ask
// answers the server's prompts on the caller's terminal (nil: none;
// wire.CallConn).
func Call(r Record, req wire.Request, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer, ask wire.Asker) (int, error) {
	return CallSpawning(r, req, timeout, stdin, stdout, stderr, ask, nil, nil)
}

// CallSpawning is Call for a client that starts the agent's processes for
// the server (req.Spawn; wire.CallConnWith: start, and interrupt closed
// when the person asks it to stop).
func CallSpawning(r Record, req wire.Request, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer, ask wire.Asker, start wire.Starter, interrupt <-chan struct{}) (int, error) {
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
	if err := serveclient.SameProgram(pid); err != nil {
		return 0, fmt.Errorf("loopx server at %s: %w", r.Socket, err)
	}
	if timeout <= 0 {
		// A session (mcp, watch, run) waits for a stopped server to
		// resume, as its person may (Ctrl-Z, then bg).
		return wire.CallConnWith(uc, r.Socket, req, stdin, stdout, stderr, ask, start, interrupt)
	}
	_ = uc.SetDeadline(time.Now().Add(timeout))
	watched := serveclient.WatchStopped(r.PID, uc.SetDeadline)
	code, err := wire.CallConnWith(uc, r.Socket, req, stdin, stdout, stderr, ask, start, interrupt)
	if watched() && err != nil {
		return code, serveclient.Stopped(r.PID)
	}
	return code, err
}

// ErrAnswerLost is CallKeyed's error when the answer of a keyed command
// was lost and could not be had again: the command may have run, and was
// not run again.
var ErrAnswerLost = serveclient.ErrAnswerLost

// CallKeyed is Call for a request that carries an idempotency key
// (req.Key): serveclient.CallKeyed over Call (when the connection ends
// after the request was sent and before the exit frame, it asks the same
// server again once, with the same key; a lost answer is ErrAnswerLost).
func CallKeyed(dir string, r Record, req wire.Request, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer, ask wire.Asker) (int, error) {
	return serveclient.CallKeyed(dir, r, req, timeout, stdin, stdout, stderr, ask, Call)
}
