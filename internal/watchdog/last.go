package watchdog

import (
	"os"
	"time"
)

// Last is what a process leaves when its deadline passes and a LastTimer
// fires: written by a signal handler that needs nothing of the Go runtime
// (raw write and exit_group system calls on memory prepared beforehand),
// so it is left even while the runtime cannot run.
type Last struct {
	// Stdout is written to standard output first (a hook's answer in its
	// host's shape; nil: nothing).
	Stdout []byte
	// Stderr is written to standard error next (one plain line).
	Stderr []byte
	// Record is appended to RecordFile (one line of an audit spool the next
	// process imports; nil or no file: nothing).
	Record     []byte
	RecordFile *os.File
	// Status is the exit status.
	Status int
}

// LastTimer is an armed ArmLast; Stop disarms it.
type LastTimer struct {
	first, last *Timer
}

// Stop disarms t (nil-safe; stopping twice is harmless). The record file
// stays open: the caller owns it.
func (t *LastTimer) Stop() {
	if t == nil {
		return
	}
	t.first.Stop()
	t.last.Stop()
}

// LastResort is how long after an ArmLast deadline the process is ended
// by its Ending should the handler not have ended it (a write that blocks
// on a full pipe).
const LastResort = 500 * time.Millisecond

// ArmLast makes this process leave l and exit with l.Status once after
// has passed (monotonic clock), unless the returned timer is stopped
// first: a kernel timer signals a handler that is not Go code (Linux on
// amd64: SupportsLast). LastResort later, e ends the process as Arm does.
// Where there is no such handler, or it cannot be installed, ArmLast is
// Arm(after, e): nothing of l is written. Only one ArmLast is armed at a
// time in a process (the handler's memory is one); arming again replaces
// l. Errors: those of Arm (the process then has no backstop).
func ArmLast(after time.Duration, l Last, e Ending) (*LastTimer, error) {
	if !SupportsLast || installLast(l) != nil {
		t, err := Arm(after, e)
		if err != nil {
			return nil, err
		}
		return &LastTimer{last: t}, nil
	}
	first, err := arm(after, lastSignal)
	if err != nil {
		return nil, err
	}
	last, err := Arm(after+LastResort, e)
	if err != nil {
		first.Stop()
		return nil, err
	}
	return &LastTimer{first: first, last: last}, nil
}
