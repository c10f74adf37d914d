//go:build linux

package watchdog

import (
	"fmt"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sigevent is the kernel's struct sigevent for SIGEV_SIGNAL (64 bytes on
// every Linux architecture Go supports).
type sigevent struct {
	value  uintptr
	signo  int32
	notify int32
	_      [64 - 16]byte
}

const sigevSignal = 0 // SIGEV_SIGNAL

func arm(after time.Duration, sig syscall.Signal) (*Timer, error) {
	ev := sigevent{signo: int32(sig), notify: sigevSignal}
	var id int32
	if _, _, e := unix.RawSyscall(unix.SYS_TIMER_CREATE, unix.CLOCK_MONOTONIC, uintptr(unsafe.Pointer(&ev)), uintptr(unsafe.Pointer(&id))); e != 0 {
		return nil, fmt.Errorf("timer_create: %w", e)
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(max(after, time.Millisecond).Nanoseconds())}
	if _, _, e := unix.RawSyscall6(unix.SYS_TIMER_SETTIME, uintptr(id), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0); e != 0 {
		unix.RawSyscall(unix.SYS_TIMER_DELETE, uintptr(id), 0, 0)
		return nil, fmt.Errorf("timer_settime: %w", e)
	}
	return &Timer{stop: func() { unix.RawSyscall(unix.SYS_TIMER_DELETE, uintptr(id), 0, 0) }}, nil
}

func capMemory(bytes uint64) error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &lim); err != nil {
		return fmt.Errorf("getrlimit: %w", err)
	}
	if lim.Cur != unix.RLIM_INFINITY && lim.Cur <= bytes {
		return nil
	}
	lim.Cur = bytes
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &lim); err != nil {
		return fmt.Errorf("setrlimit: %w", err)
	}
	return nil
}
