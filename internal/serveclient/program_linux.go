package serveclient

import (
	"debug/elf"
	"fmt"
	"os"
	"strconv"
)

// SameProgram returns nil when process pid runs this loopx program — the
// same Go build (the build ID the linker writes into the executable,
// .note.go.buildid, of /proc/PID/exe and of /proc/self/exe), or the very
// same file — else an ErrNotServer. The record in the anchor directory
// names a pid and a socket, and any process of this user can write its
// own there; checking the socket's peer against the record proves only
// that the record's writer listens on it. A copy of the loopx binary is
// the same program; a server started from another build (loopx rebuilt or
// upgraded while it ran) is refused: restart it.
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
	if os.SameFile(self, peer) {
		return nil
	}
	if mine := buildID("/proc/self/exe"); mine != "" && mine == buildID(exe) {
		return nil
	}
	what, _ := os.Readlink(exe)
	return fmt.Errorf("%w: pid %d runs %s, not this loopx (a server of another build: restart it with `loopx serve stop` and `loopx serve --detach`)", ErrNotServer, pid, what)
}

// buildID is the Go build ID of the executable at path ("" when it has
// none, or it cannot be read).
func buildID(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil || s.Size > 1<<10 {
		return ""
	}
	b, err := s.Data()
	if err != nil {
		return ""
	}
	return string(b)
}
