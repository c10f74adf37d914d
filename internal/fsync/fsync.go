// Package fsync flushes files and directories to stable storage through one
// Syncer, so that every write loopx acknowledges goes through a flush whose
// error reaches the caller, and a test can make the disk fail (Use) to show
// a write refused rather than acknowledged. It imports only the standard
// library and golang.org/x/sys.
package fsync

import (
	"os"
	"sync/atomic"
)

// Syncer flushes the open file f (a regular file or a directory) to stable
// storage: fsync(2) on Linux, F_FULLFSYNC on macOS through os.File.Sync.
// An error means the file's data written since the last flush may be lost.
type Syncer interface {
	Sync(f *os.File) error
}

// OS is the operating system's flush, os.File.Sync.
type OS struct{}

// Sync is f.Sync().
func (OS) Sync(f *os.File) error { return f.Sync() }

var current atomic.Value // holds a box

// box keeps atomic.Value's stored type the same for every Syncer.
type box struct{ s Syncer }

func init() { current.Store(box{OS{}}) }

// File flushes f with the Syncer in use (OS unless a test chose another).
// Errors: the Syncer's, unchanged.
func File(f *os.File) error { return current.Load().(box).s.Sync(f) }

// Dir flushes the directory at path: what makes a rename, a creation or a
// removal in it durable. Errors: opening the directory; the Syncer's.
func Dir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	serr := File(d)
	if cerr := d.Close(); serr == nil {
		serr = cerr
	}
	return serr
}

// Use makes s the Syncer of every later flush in this process, for a test
// of a failing disk; restore puts the previous one back. Not for use while
// another goroutine's test expects the operating system's flush.
func Use(s Syncer) (restore func()) {
	prev := current.Load().(box)
	current.Store(box{s})
	return func() { current.Store(prev) }
}
