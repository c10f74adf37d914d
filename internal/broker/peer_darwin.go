package broker

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peer is the connecting process's pid (LOCAL_PEERPID) and uid
// (LOCAL_PEERCRED), as macOS's kernel names them.
func peer(conn *net.UnixConn) (pid, uid int, err error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0, 0, err
	}
	var cred *unix.Xucred
	var cerr, perr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		pid, perr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	}); err != nil {
		return 0, 0, err
	}
	if cerr != nil {
		return 0, 0, fmt.Errorf("LOCAL_PEERCRED: %w", cerr)
	}
	if perr != nil {
		return 0, 0, fmt.Errorf("LOCAL_PEERPID: %w", perr)
	}
	return pid, int(cred.Uid), nil
}

// parentOf is pid's parent (the kern.proc.pid sysctl).
func parentOf(pid int) (int, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return 0, err
	}
	return int(kp.Eproc.Ppid), nil
}

// peerHandle names no process here (-1): macOS has no pidfd.
func peerHandle(*net.UnixConn, int) int { return -1 }

// handleAlive is true: nothing to ask without a pidfd.
func handleAlive(int) bool { return true }

// closeHandle does nothing.
func closeHandle(int) {}

// procStart is 0: a retry is matched by pid alone here.
func procStart(int) uint64 { return 0 }
