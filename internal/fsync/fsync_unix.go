//go:build unix

package fsync

import (
	"os"

	"golang.org/x/sys/unix"
)

// FD flushes the open descriptor fd (named name in errors) through a
// duplicate of it, so the caller keeps and closes fd. Errors: duplicating;
// the Syncer's.
func FD(fd int, name string) error {
	d, err := unix.Dup(fd)
	if err != nil {
		return &os.PathError{Op: "dup", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(d), name)
	serr := File(f)
	if cerr := f.Close(); serr == nil {
		serr = cerr
	}
	return serr
}
