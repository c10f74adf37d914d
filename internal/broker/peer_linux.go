package broker

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// peer is the connecting process's pid and uid (SO_PEERCRED).
func peer(conn *net.UnixConn) (pid, uid int, err error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0, 0, err
	}
	var cred *unix.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, 0, err
	}
	if serr != nil {
		return 0, 0, fmt.Errorf("SO_PEERCRED: %w", serr)
	}
	return int(cred.Pid), int(cred.Uid), nil
}

// parentOf is pid's parent, field 4 of /proc/PID/stat (read after the
// command's closing parenthesis, which may itself hold spaces).
func parentOf(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command field", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: too short", pid)
	}
	return strconv.Atoi(f[1])
}

// soPeerPidfd is SO_PEERPIDFD (Linux 6.5): a pidfd of the peer as it
// connected, which a pid reused since cannot be mistaken for.
const soPeerPidfd = 77

// peerHandle is a pidfd naming the connecting process (SO_PEERPIDFD, else
// pidfd_open of pid, racy only before the caller reads the peer's facts),
// -1 when neither works.
func peerHandle(conn *net.UnixConn, pid int) int {
	fd := -1
	if raw, err := conn.SyscallConn(); err == nil {
		_ = raw.Control(func(s uintptr) {
			if v, err := unix.GetsockoptInt(int(s), unix.SOL_SOCKET, soPeerPidfd); err == nil {
				fd = v
			}
		})
	}
	if fd < 0 {
		if v, err := unix.PidfdOpen(pid, 0); err == nil {
			fd = v
		}
	}
	return fd
}

// handleAlive reports whether the process a pidfd names still runs (a
// pidfd turns readable when it exits); true for -1 (nothing to ask).
func handleAlive(fd int) bool {
	if fd < 0 {
		return true
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n == 0
}

// closeHandle closes a pidfd (-1: none).
func closeHandle(fd int) {
	if fd >= 0 {
		_ = unix.Close(fd)
	}
}

// procStart is pid's start time (field 22 of /proc/PID/stat, in clock
// ticks since boot), 0 when it cannot be read.
func procStart(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}
