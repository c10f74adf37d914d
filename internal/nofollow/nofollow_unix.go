//go:build unix

package nofollow

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/loopx-dev/loopx/internal/fsync"
	"golang.org/x/sys/unix"
)

// resolve opens rel below the directory dirfd with flags, following no
// link: openat2 where the kernel has it, else a walk with O_NOFOLLOW.
func resolve(dirfd int, rel string, flags int, mode uint32) (int, error) {
	if fd, err, ok := openat2(dirfd, rel, flags|unix.O_CLOEXEC, mode); ok {
		return fd, err
	}
	parts := strings.Split(rel, string(filepath.Separator))
	fd, err := unix.Dup(dirfd)
	if err != nil {
		return -1, err
	}
	for _, c := range parts[:len(parts)-1] {
		next, err := unix.Openat(fd, c, unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_RDONLY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	r, err := unix.Openat(fd, parts[len(parts)-1], flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	unix.Close(fd)
	return r, err
}

// openBase opens the trusted directory base itself (links in base's own
// path are the user's and are followed).
func openBase(base string) (int, error) {
	return unix.Open(base, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
}

// openDir opens the directory rel below base ("." is base).
func openDir(base, rel string) (int, error) {
	bfd, err := openBase(base)
	if err != nil || rel == "." {
		return bfd, err
	}
	defer unix.Close(bfd)
	return resolve(bfd, rel, unix.O_DIRECTORY|unix.O_RDONLY, 0)
}

func openFile(base, rel string, flag int, perm os.FileMode) (*os.File, error) {
	bfd, err := openBase(base)
	if err != nil {
		return nil, err
	}
	defer unix.Close(bfd)
	mode := uint32(0)
	if flag&os.O_CREATE != 0 {
		mode = uint32(perm.Perm())
	}
	fd, err := resolve(bfd, rel, flag, mode)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(base, rel)), nil
}

func mkdirAll(base, rel string, perm os.FileMode) error {
	fd, err := openBase(base)
	if err != nil {
		return err
	}
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		if err := unix.Mkdirat(fd, c, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
			unix.Close(fd)
			return &os.PathError{Op: "mkdir", Path: filepath.Join(base, rel), Err: err}
		}
		next, err := unix.Openat(fd, c, unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_RDONLY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return &os.PathError{Op: "mkdir", Path: filepath.Join(base, rel), Err: err}
		}
		fd = next
	}
	return unix.Close(fd)
}

func writeFile(base, rel string, data []byte, perm os.FileMode, flush bool) error {
	dfd, err := openDir(base, filepath.Dir(rel))
	if err != nil {
		if le := linkAt(base, filepath.Dir(rel)); le != nil {
			return le
		}
		return &os.PathError{Op: "open", Path: filepath.Join(base, filepath.Dir(rel)), Err: err}
	}
	defer unix.Close(dfd)
	name := filepath.Base(rel)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := "." + name + "." + hex.EncodeToString(rnd[:]) + ".tmp"
	fd, err := unix.Openat(dfd, tmp, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return &os.PathError{Op: "create", Path: filepath.Join(base, filepath.Dir(rel), tmp), Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(base, filepath.Dir(rel), tmp))
	_, werr := f.Write(data)
	if werr == nil && flush {
		// The data first, then the rename: a crash never leaves the new
		// name on an empty or partial file.
		werr = fsync.File(f)
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		if err := unix.Renameat(dfd, tmp, dfd, name); err != nil {
			werr = &os.LinkError{Op: "rename", Old: tmp, New: filepath.Join(base, rel), Err: err}
		}
	}
	if werr != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return werr
	}
	if !flush {
		return nil
	}
	// The rename is durable once its directory is: until then a crash can
	// bring the old file back.
	return fsync.FD(dfd, filepath.Join(base, filepath.Dir(rel)))
}

func rename(base, o, n string) error {
	ofd, err := openDir(base, filepath.Dir(o))
	if err != nil {
		return err
	}
	defer unix.Close(ofd)
	nfd, err := openDir(base, filepath.Dir(n))
	if err != nil {
		return err
	}
	defer unix.Close(nfd)
	if err := unix.Renameat(ofd, filepath.Base(o), nfd, filepath.Base(n)); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(base, o), New: filepath.Join(base, n), Err: err}
	}
	return nil
}

func hardLinks(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// syscallODirectory is O_DIRECTORY (ReadDir).
const syscallODirectory = unix.O_DIRECTORY

func link(base, o, n string) error {
	ofd, err := openDir(base, filepath.Dir(o))
	if err != nil {
		return err
	}
	defer unix.Close(ofd)
	nfd, err := openDir(base, filepath.Dir(n))
	if err != nil {
		return err
	}
	defer unix.Close(nfd)
	if err := unix.Linkat(ofd, filepath.Base(o), nfd, filepath.Base(n), 0); err != nil {
		return &os.LinkError{Op: "link", Old: filepath.Join(base, o), New: filepath.Join(base, n), Err: err}
	}
	return nil
}

func removeAll(base, rel string) error {
	dfd, err := openDir(base, filepath.Dir(rel))
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return err
	}
	defer unix.Close(dfd)
	if err := removeAt(dfd, filepath.Base(rel)); err != nil {
		return &os.PathError{Op: "remove", Path: filepath.Join(base, rel), Err: err}
	}
	return nil
}

// removeAt removes name in the directory dfd: unlinked when it is not a
// directory (a symbolic link included), else emptied through a
// descriptor opened with O_NOFOLLOW and removed.
func removeAt(dfd int, name string) error {
	err := unix.Unlinkat(dfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return err
	}
	fd, oerr := unix.Openat(dfd, name, unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if oerr != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	names, rerr := f.Readdirnames(-1)
	for _, n := range names {
		if e := removeAt(fd, n); e != nil && rerr == nil {
			rerr = e
		}
	}
	f.Close()
	if rerr != nil {
		return rerr
	}
	if err := unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return err
	}
	return nil
}

// FDPath returns a path that opens the very file f holds open, for a
// library that opens files only by name (buntdb): /proc/self/fd/N on
// Linux, /dev/fd/N elsewhere. A file opened without following a link
// (OpenFile) is then what the library opens, whatever is placed at its
// name meanwhile. The path is checked to name f's file (same device and
// inode). Errors: there is no such path (no /proc mounted) or it names
// another file; loopx then does not open the file at all.
func FDPath(f *os.File) (string, error) {
	p := "/dev/fd/" + strconv.Itoa(int(f.Fd()))
	if runtime.GOOS == "linux" {
		p = "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	}
	want, err := f.Stat()
	if err != nil {
		return "", err
	}
	got, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("%s cannot be reopened through %s (is /proc mounted?): %w", f.Name(), p, err)
	}
	if !os.SameFile(want, got) {
		return "", fmt.Errorf("%s does not name %s", p, f.Name())
	}
	return p, nil
}
