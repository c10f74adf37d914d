// Package serve is `loopx serve`'s process: one per project, it records
// itself in the project's anchor directory (pid, start, socket, address),
// listens on a unix socket there (the broker protocol, internal/broker)
// and on a loopback HTTP address, and stops cleanly on SIGTERM/SIGINT.
// Which server is alive is decided by a lock it holds for its lifetime
// (serve.lock in the anchor directory), never by the record alone: a
// record left by a killed server is ignored and removed.
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/loopx-dev/loopx/internal/atomicfile"
	"github.com/loopx-dev/loopx/internal/serveclient"
)

// File names in the anchor directory: the record (JSON, 0600), the lock a
// running server holds, and the socket when its path fits sun_path.
const (
	RecordName = serveclient.RecordName
	LockName   = "serve.lock"
	SocketName = "serve.sock"
)

// Record is what a running server writes in the anchor directory
// (RecordName) and removes on exit (serveclient.Record).
type Record = serveclient.Record

// ErrNotRunning is Status's error when no server of the project is alive.
var ErrNotRunning = errors.New("no loopx server is running for this project")

// ErrStartingOrStopping is Status's error when the server lock is held
// and no record is written: a server starting (before it is ready) or
// stopping (after its socket and record are gone, until the lock is
// released last). It is an ErrNotRunning too (errors.Is): nothing answers
// on the socket.
var ErrStartingOrStopping = fmt.Errorf("a loopx server is starting or stopping for this project (its lock is held, it answers nothing): %w", ErrNotRunning)

// RunningError is Serve's error when another server holds the project.
type RunningError struct{ Record Record }

func (e *RunningError) Error() string {
	if e.Record.PID == 0 {
		return "a loopx server is starting for this project (its lock is held, its record not written yet)"
	}
	return fmt.Sprintf("a loopx server already runs for this project (pid %d, socket %s)", e.Record.PID, e.Record.Socket)
}

// writeRecord writes r to dir/RecordName atomically (0600).
func writeRecord(dir string, r Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, RecordName), append(b, '\n'))
}

// readRecord reads dir/RecordName (serveclient.ReadRecord).
func readRecord(dir string) (Record, error) { return serveclient.ReadRecord(dir) }

// lock opens dir/LockName (0600) and tries its exclusive flock without
// waiting; held is true when another process holds it (f is then nil).
func lock(dir string) (f *os.File, held bool, err error) {
	f, err = os.OpenFile(filepath.Join(dir, LockName), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, false, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, true, nil
	}
	if err != nil {
		f.Close()
		return nil, false, err
	}
	return f, false, nil
}

// probeGrace is how long a starting server retries the lock while it is
// held with no record written: every Status probes the lock by taking it
// for an instant, so a command asking whether a server runs (or
// `serve --detach` waiting for its child) can hold it at the very moment
// the server takes it.
const probeGrace = 2 * time.Second

// Lock is a project's server lock, held until Close.
type Lock struct{ f *os.File }

// Close releases the lock.
func (l *Lock) Close() error { return l.f.Close() }

// Acquire takes dir's server lock for a starting server. A lock held by a
// server whose record is written is that server (*RunningError at once);
// a lock held with no record is a probe or a server still starting, so it
// is retried for probeGrace before *RunningError (with an empty record:
// "a server is starting").
func Acquire(dir string) (*Lock, error) {
	deadline := time.Now().Add(probeGrace)
	for {
		f, held, err := lock(dir)
		if err != nil {
			return nil, err
		}
		if !held {
			return &Lock{f: f}, nil
		}
		r, rerr := readRecord(dir)
		if (rerr == nil && r.PID != 0) || time.Now().After(deadline) {
			return nil, &RunningError{Record: r}
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Status is the record of the project's running server, whose anchor
// directory is dir. A record without a live holder of the lock (a killed
// server's) is removed and ErrNotRunning returned; a held lock with no
// record is ErrStartingOrStopping (an ErrNotRunning).
func Status(dir string) (Record, error) {
	f, held, err := lock(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Record{}, ErrNotRunning
		}
		return Record{}, err
	}
	if !held {
		// Nobody serves: what a killed server left goes.
		_ = os.Remove(filepath.Join(dir, RecordName))
		f.Close()
		return Record{}, ErrNotRunning
	}
	r, err := readRecord(dir)
	if errors.Is(err, os.ErrNotExist) {
		return Record{}, ErrStartingOrStopping
	}
	return r, err
}

// Stop sends SIGTERM to the project's running server (Status), then
// SIGCONT (a server stopped by a signal stops too), and waits up to wait
// for its lock to be free, or until ctx is done. Errors: ErrNotRunning;
// the signal's; a server still running after wait; ctx's (the server was
// asked to stop and may still be stopping).
func Stop(ctx context.Context, dir string, wait time.Duration) (Record, error) {
	r, err := Status(dir)
	if err != nil {
		return r, err
	}
	if err := syscall.Kill(r.PID, syscall.SIGTERM); err != nil {
		return r, fmt.Errorf("stopping the server (pid %d): %w", r.PID, err)
	}
	// A server stopped by a signal (Ctrl-Z in its terminal) handles the
	// SIGTERM only once it runs again: it is resumed to stop.
	_ = syscall.Kill(r.PID, syscall.SIGCONT)
	deadline := time.Now().Add(wait)
	for {
		f, held, err := lock(dir)
		if err != nil {
			return r, err
		}
		if !held {
			f.Close()
			return r, nil
		}
		if time.Now().After(deadline) {
			return r, fmt.Errorf("the server (pid %d) is still running after %s", r.PID, wait)
		}
		select {
		case <-ctx.Done():
			return r, fmt.Errorf("the server (pid %d) was asked to stop; not waiting for it any more: %w", r.PID, context.Cause(ctx))
		case <-time.After(20 * time.Millisecond):
		}
	}
}
