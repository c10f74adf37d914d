package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// maxSocketPath is the longest unix socket path the system takes: sun_path
// holds 108 bytes on Linux, 104 on macOS and the BSDs, its last one the
// terminating NUL.
func maxSocketPath() int {
	if runtime.GOOS == "linux" {
		return 107
	}
	return 103
}

// socketPath is where the server of the project whose anchor directory is
// dir listens: dir/SocketName when that fits sun_path, else s.sock in a
// fresh directory of the user's (fallbackBase: $XDG_RUNTIME_DIR, else the
// temporary directory) made 0700 and checked (a directory, not a link,
// owned by the user, mode 0700); cleanup removes that directory ("" dir:
// nothing to remove). Errors: no short path can be made.
func socketPath(dir string) (path, cleanup string, err error) {
	p := filepath.Join(dir, SocketName)
	if len(p) <= maxSocketPath() {
		return p, "", nil
	}
	base := fallbackBase()
	d, err := os.MkdirTemp(base, "loopx-")
	if err != nil {
		return "", "", fmt.Errorf("a short socket directory: %w", err)
	}
	if err := checkPrivateDir(d); err != nil {
		os.RemoveAll(d)
		return "", "", err
	}
	p = filepath.Join(d, "s.sock")
	if len(p) > maxSocketPath() {
		os.RemoveAll(d)
		return "", "", fmt.Errorf("no socket path short enough: %s is %d bytes (at most %d)", p, len(p), maxSocketPath())
	}
	return p, d, nil
}

// fallbackBase is $XDG_RUNTIME_DIR when it is an absolute path, else the
// system's temporary directory.
func fallbackBase() string {
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		return x
	}
	return os.TempDir()
}

// checkPrivateDir refuses d unless it is a directory (not a link), owned
// by this user, of mode 0700.
func checkPrivateDir(d string) error {
	fi, err := os.Lstat(d)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("socket directory %s is not a directory", d)
	}
	if fi.Mode().Perm() != 0o700 {
		return fmt.Errorf("socket directory %s has mode %o (want 700)", d, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("socket directory %s is owned by uid %d, not %d", d, st.Uid, os.Getuid())
	}
	return nil
}
