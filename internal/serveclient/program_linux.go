package serveclient

import (
	"fmt"
	"os"
	"strconv"
)

// SameProgram returns nil when process pid runs the program file this
// process runs (/proc/PID/exe and /proc/self/exe name the same device and
// inode), else an ErrNotServer: the record in the anchor directory names
// a pid and a socket, and any process of this user can write its own
// there; checking the socket's peer against the record proves only that
// the record's writer listens on it. A server started from another build
// of loopx (loopx was rebuilt or upgraded while it ran) is refused the
// same way: restart it.
func SameProgram(pid int) error {
	self, err := os.Stat("/proc/self/exe")
	if err != nil {
		return fmt.Errorf("%w: this program's file cannot be read: %v", ErrNotServer, err)
	}
	exe := "/proc/" + strconv.Itoa(pid) + "/exe"
	peer, err := os.Stat(exe)
	if err != nil {
		return fmt.Errorf("%w: the program of pid %d cannot be read: %v", ErrNotServer, pid, err)
	}
	if !os.SameFile(self, peer) {
		what, _ := os.Readlink(exe)
		return fmt.Errorf("%w: pid %d runs %s, not this loopx (a server of another build: restart it with `loopx serve stop` and `loopx serve --detach`)", ErrNotServer, pid, what)
	}
	return nil
}
