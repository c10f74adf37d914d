// Package watchdog bounds a short-lived process from outside the Go
// scheduler: a kernel timer that ends the process at a deadline even while
// one goroutine runs a long, non-preemptible step (a policy built-in
// copying a huge string stops every other goroutine for as long as the
// garbage collector waits for it), and a cap on the process's memory.
//
// A hook uses both so that a host always gets an answer before its own
// timeout: its in-process deadline answers first in every ordinary case;
// the timer is the backstop when the runtime itself cannot run, and its
// handler (ArmLast) writes the answer prepared beforehand without it.
package watchdog

import (
	"syscall"
	"time"
)

// Ending is how the process ends when a Timer fires.
type Ending int

const (
	// Abort ends the process through the Go runtime's own handler of
	// SIGABRT, which runs on a signal stack even while the scheduler is
	// stopped: it prints "SIGABRT: abort" and the goroutines' stacks on
	// stderr and exits with status 2 (a hook host blocks the call).
	Abort Ending = iota
	// Kill ends the process with SIGKILL: no output, no exit status (a hook
	// host treats it as no answer).
	Kill
)

// signal is the signal that ends the process as e says.
func (e Ending) signal() syscall.Signal {
	if e == Kill {
		return syscall.SIGKILL
	}
	return syscall.SIGABRT
}

// Timer is an armed backstop; Stop disarms it.
type Timer struct {
	stop func()
}

// Stop disarms t (nil-safe; stopping twice is harmless).
func (t *Timer) Stop() {
	if t != nil && t.stop != nil {
		t.stop()
		t.stop = nil
	}
}

// Arm ends this process as e says once after has passed (monotonic
// clock), unless the returned Timer is stopped first. On Linux the kernel
// delivers the signal (a POSIX timer, timer_create), so it fires whatever
// the Go runtime is doing; elsewhere a goroutine timer sends it, which
// fires late when the runtime is stalled. Errors: the timer cannot be
// created (the process then has no backstop).
func Arm(after time.Duration, e Ending) (*Timer, error) {
	return arm(after, e.signal())
}

// CapMemory limits the process's data segment (RLIMIT_DATA: its heap and
// other private writable mappings, not reserved address space) to bytes:
// an allocation past it fails, and the Go runtime then exits with status 2
// ("fatal error: runtime: out of memory"). A cap is only lowered, never
// raised. Errors: the limit cannot be read or set (unsupported on this
// system: ErrUnsupported).
func CapMemory(bytes uint64) error {
	return capMemory(bytes)
}
