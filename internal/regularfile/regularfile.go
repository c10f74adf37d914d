// Package regularfile reads files that must be regular files. A path an
// agent can write may hold a FIFO (opening or reading it blocks until a
// writer comes, which none will), a device (/dev/zero never ends) or a
// file far larger than anything loopx writes there; os.ReadFile would hang
// or exhaust memory on each, and a decision that hangs is no decision.
// These functions open without blocking, check the opened file (not the
// name, so a swap between a stat and the open changes nothing), and read at
// most a stated number of bytes.
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the errors of Open and ReadFile when the path
// names something other than a regular file (a FIFO, a socket, a device, a
// directory).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by ReadFile's error when the file holds more than
// the limit it was given.
var ErrTooLarge = errors.New("file too large")

// Open opens path for reading (a link is followed) without blocking on a
// FIFO, and returns the file only when what it opened is a regular file;
// otherwise it closes it and returns a *fs.PathError wrapping
// ErrNotRegular. Errors of the open itself are returned as os.Open returns
// them (fs.ErrNotExist for a missing path).
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	return f, nil
}

// ReadFile returns the contents of the regular file at path, as os.ReadFile
// does, refusing (ErrNotRegular) anything else and refusing (ErrTooLarge)
// a file of more than limit bytes, without reading more than limit+1 bytes
// whatever the file's size says. A missing path returns an error for which
// errors.Is(err, fs.ErrNotExist) holds.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%d bytes, at most %d)", ErrTooLarge, fi.Size(), limit)}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (more than %d bytes)", ErrTooLarge, limit)}
	}
	return b, nil
}

// kind names a non-regular file mode for an error message.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	default:
		return m.Type().String()
	}
}
