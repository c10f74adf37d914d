package watchdog

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SupportsLast reports whether ArmLast leaves its Last on this system (a
// handler written in assembly for it).
const SupportsLast = true

// lastSignal is the signal ArmLast's first timer sends (the Go runtime
// uses it for nothing a hook needs; os/signal is never asked for it).
const lastSignal = syscall.SIGALRM

// The handler's memory (read by lastHandler in last_linux_amd64.s): the
// addresses and lengths of Last's bytes, the record file's descriptor and
// the exit status. The slices are kept in lastKeep so that the collector
// never frees what the addresses point to (Go's heap does not move).
var (
	lastOut, lastOutLen uintptr
	lastErr, lastErrLen uintptr
	lastRec, lastRecLen uintptr
	lastFd              uintptr = ^uintptr(0)
	lastStatus          uintptr
	lastKeep            [3][]byte
)

// lastHandler is the signal handler (assembly, the kernel's calling
// convention): it writes the prepared bytes and exits; it never returns.
func lastHandler()

// handlerPC is lastHandler's address.
func handlerPC() uintptr

// kernelSigaction is the kernel's struct sigaction on amd64.
type kernelSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

const (
	saOnstack  = 0x08000000
	saRestorer = 0x04000000
	saSiginfo  = 0x4
)

// installLast prepares l for the handler and installs it for lastSignal
// (every signal blocked while it runs, on the thread's signal stack).
func installLast(l Last) error {
	ptr := func(b []byte) (uintptr, uintptr) {
		if len(b) == 0 {
			return 0, 0
		}
		return uintptr(unsafe.Pointer(&b[0])), uintptr(len(b))
	}
	lastKeep = [3][]byte{l.Stdout, l.Stderr, l.Record}
	lastOut, lastOutLen = ptr(l.Stdout)
	lastErr, lastErrLen = ptr(l.Stderr)
	lastRec, lastRecLen = ptr(l.Record)
	lastFd = ^uintptr(0)
	if l.RecordFile != nil && len(l.Record) > 0 {
		lastFd = l.RecordFile.Fd()
	}
	lastStatus = uintptr(l.Status)
	// The handler never returns, so its restorer (which the kernel
	// requires on amd64) is never run.
	sa := kernelSigaction{handler: handlerPC(), flags: saOnstack | saRestorer | saSiginfo, restorer: handlerPC(), mask: ^uint64(0)}
	if _, _, e := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(lastSignal), uintptr(unsafe.Pointer(&sa)), 0, 8, 0, 0); e != 0 {
		return fmt.Errorf("rt_sigaction: %w", e)
	}
	return nil
}
