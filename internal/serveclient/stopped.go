package serveclient

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// ErrServerStopped is a call's error when the server stayed stopped by a
// signal (Ctrl-Z in its terminal, SIGSTOP; or held by a debugger) for
// StoppedFor while the client waited: the client gives up then instead
// of waiting out its timeout (minutes for a command).
var ErrServerStopped = errors.New("the loopx server is stopped")

// StoppedFor is how long a server must stay stopped before a waiting
// client gives up (WatchStopped): long enough for a person who pressed
// Ctrl-Z to type `bg`.
var StoppedFor = 5 * time.Second

// stoppedPoll is how often WatchStopped reads the server's state.
const stoppedPoll = 100 * time.Millisecond

// WatchStopped watches process pid while a call waits on it: once the
// process has been stopped (state T or t in /proc/PID/stat) for
// StoppedFor, it calls expire (the connection's SetDeadline with the
// current time) so that the call's read returns. The function it returns
// ends the watch and reports whether it expired the call. Where there is
// no /proc, nothing is watched.
func WatchStopped(pid int, expire func(time.Time) error) (done func() bool) {
	var (
		mu      sync.Mutex
		expired bool
	)
	quit := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(stoppedPoll)
		defer t.Stop()
		var since time.Time
		for {
			select {
			case <-quit:
				return
			case now := <-t.C:
				if !processStopped(pid) {
					since = time.Time{}
					continue
				}
				if since.IsZero() {
					since = now
				}
				if now.Sub(since) >= StoppedFor {
					mu.Lock()
					expired = true
					mu.Unlock()
					_ = expire(time.Now())
					return
				}
			}
		}
	}()
	return func() bool {
		close(quit)
		<-ended
		mu.Lock()
		defer mu.Unlock()
		return expired
	}
}

// Stopped is the error of a call to the server pid that WatchStopped
// expired (ErrServerStopped): what to do (resume it, or detach the
// debugger holding it), and that a command it was sent may still run
// when the server resumes.
func Stopped(pid int) error {
	if processState(pid) == 't' {
		// A tracer's stop: SIGCONT does not end it, the tracer does.
		return fmt.Errorf("%w (pid %d: held by a debugger or tracer) and did not answer: detach the debugger to resume it; a command sent to it may run when it resumes", ErrServerStopped, pid)
	}
	return fmt.Errorf("%w (pid %d: Ctrl-Z in its terminal, or a stop signal) and did not answer: resume it (`kill -CONT %d`, or `fg` in its terminal); a command sent to it may run when it resumes", ErrServerStopped, pid, pid)
}

// processStopped reports whether process pid is stopped by a signal or a
// tracer (processState T or t).
func processStopped(pid int) bool {
	s := processState(pid)
	return s == 'T' || s == 't'
}

// processState is process pid's state in /proc/PID/stat (the field after
// the command name's closing parenthesis: T stopped by a signal, t by a
// tracer), 0 when it cannot be read.
func processState(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}
