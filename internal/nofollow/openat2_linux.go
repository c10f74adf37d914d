//go:build linux

package nofollow

import (
	"errors"

	"golang.org/x/sys/unix"
)

// openat2 resolves rel below dirfd with RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH
// (Linux 5.6+); ok is false when the kernel lacks openat2 (ENOSYS, or a
// seccomp filter that refuses it with EPERM), and the caller walks instead.
func openat2(dirfd int, rel string, flags int, mode uint32) (int, error, bool) {
	if forceWalk {
		return -1, nil, false
	}
	fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{Flags: uint64(flags), Mode: uint64(mode), Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return -1, err, false
	}
	return fd, err, true
}
