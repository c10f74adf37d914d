package serveclient

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
)

// SameProgram returns nil when process pid runs this loopx program — the
// very file this process runs (/proc/PID/exe and /proc/self/exe: the same
// device and inode), or a file with the same bytes (a copy of loopx) —
// else an ErrNotServer. The record in the anchor directory names a pid
// and a socket, and any process of this user can write its own there;
// checking the socket's peer against the record proves only that the
// record's writer listens on it. The program is compared by what the
// kernel runs, not by anything in it a forger could copy (a build ID): a
// running executable cannot be written (ETXTBSY), so the bytes compared
// are the code the peer runs. A server started from another build (loopx
// rebuilt or upgraded while it ran) is refused: restart it.
func SameProgram(pid int) error {
	exe := "/proc/" + strconv.Itoa(pid) + "/exe"
	peer, err := os.Open(exe)
	if err != nil {
		return fmt.Errorf("%w: the program of pid %d cannot be read: %v", ErrNotServer, pid, err)
	}
	defer peer.Close()
	self, err := os.Open("/proc/self/exe")
	if err != nil {
		return fmt.Errorf("%w: this program's file cannot be read: %v", ErrNotServer, err)
	}
	defer self.Close()
	ps, err1 := peer.Stat()
	ss, err2 := self.Stat()
	if err1 == nil && err2 == nil && os.SameFile(ps, ss) {
		return nil
	}
	if err1 == nil && err2 == nil && ps.Size() == ss.Size() && sameBytes(peer, self) {
		return nil
	}
	what, _ := os.Readlink(exe)
	return fmt.Errorf("%w: pid %d runs %s, not this loopx (a server of another build: restart it with `loopx serve stop` and `loopx serve --detach`)", ErrNotServer, pid, what)
}

// sameBytes reports whether a and b read the same bytes to their ends.
func sameBytes(a, b io.Reader) bool {
	ba, bb := make([]byte, 1<<20), make([]byte, 1<<20)
	for {
		na, ea := io.ReadFull(a, ba)
		nb, eb := io.ReadFull(b, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea != nil || eb != nil {
			return (ea == io.EOF || ea == io.ErrUnexpectedEOF) && (eb == io.EOF || eb == io.ErrUnexpectedEOF)
		}
	}
}
