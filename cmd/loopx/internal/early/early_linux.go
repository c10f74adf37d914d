package early

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/loopx-dev/loopx/internal/anchorname"
	"github.com/loopx-dev/loopx/internal/broker/wire"
	"github.com/loopx-dev/loopx/internal/serveclient"
)

func init() {
	// Only a program named loopx: a test binary runs other commands as
	// itself under their own names.
	if len(os.Args) == 0 || path.Base(os.Args[0]) != "loopx" {
		return
	}
	if code, ok := forward(os.Args[1:]); ok {
		os.Exit(code)
	}
}

// forward runs the arguments through the project's server when one runs
// and the command is one early handles: a keyed command (not a hook, a
// completion, a long session, nor one that starts the agent's
// processes). ok is false when it leaves the command to the program,
// having sent nothing.
func forward(args []string) (code int, ok bool) {
	if len(args) == 1 && args[0] == ChildCommand || wire.Socket() != "" || os.Getenv(TestForwardTimeoutEnv) != "" {
		return 0, false
	}
	f := Scan(args)
	if f.Help || f.Command == "" || (NotServed[f.Command] && !f.ServeStatus()) || f.Spawning() || (!f.Keyed() && f.Command != "hook") {
		return 0, false
	}
	dir, ok := anchorDir(f.Project)
	if !ok {
		return 0, false
	}
	r, running := serveclient.Lookup(dir)
	if !running {
		return 0, false
	}
	req, err := wire.NewRequest(args)
	if err != nil {
		return 0, false
	}
	if f.Command == "hook" {
		// The payload is read here, whole and bounded, so that the
		// deadline covers the server's work only.
		// Dialled first: a server that cannot be reached leaves the
		// payload unread, to the program.
		conn, err := serveclient.Dial(r)
		if err != nil {
			return 0, false
		}
		data, _ := io.ReadAll(io.LimitReader(os.Stdin, MaxPayload+1))
		timeout := HookDeadline + HookMargin
		req.DeadlineMS = int64(timeout / time.Millisecond)
		code, err := serveclient.CallOn(conn, r, req, timeout, bytes.NewReader(data), os.Stdout, os.Stderr, nil)
		if err == nil {
			return code, true
		}
		Hook = &HookCall{Payload: data, Record: r, Timeout: timeout, Err: err}
		return 0, false
	}
	if req.Key, ok = newKey(); !ok {
		return 0, false
	}
	var stdin io.Reader = os.Stdin
	if isTerminal(0) {
		// A terminal is left to the prompts (typed confirmations): what a
		// person types there is not sent ahead as standard input.
		stdin = nil
	}
	code, err = serveclient.CallKeyed(dir, r, req, ForwardTimeout, stdin, os.Stdout, os.Stderr, wire.AskTerminal, serveclient.Call)
	if err == nil {
		return code, true
	}
	if errors.Is(err, serveclient.ErrNotSent) && !errors.Is(err, serveclient.ErrAnswerLost) {
		return 0, false
	}
	fmt.Fprintf(os.Stderr, "loopx: %v\n", serveclient.ServerError(r, ForwardTimeout, err))
	return ExitInternal, true
}

// anchorDir is the anchor directory of the project the arguments name
// (project, else $LOOPX_PROJECT, else found upwards from the working
// directory), as internal/anchor.Dir names it; ok is false when it
// cannot be had here (the program then finds it, or says why not).
func anchorDir(project string) (string, bool) {
	root := project
	if root == "" {
		root = os.Getenv("LOOPX_PROJECT")
	}
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", false
		}
		var ok bool
		if root, ok = findRoot(wd); !ok {
			return "", false
		}
	}
	home := os.Getenv("XDG_STATE_HOME")
	if home == "" || !path.IsAbs(home) {
		h, err := os.UserHomeDir()
		if err != nil || h == "" {
			return "", false
		}
		home = path.Join(h, ".local", "state")
	}
	real, err := evalSymlinks(abs(root))
	if err != nil {
		return "", false
	}
	return path.Join(home, "loopx", "projects", anchorname.For(real)), true
}

// abs is filepath.Abs on a Unix system (the working directory as os.Getwd
// gives it); "" when the working directory cannot be had.
func abs(p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return path.Join(wd, p)
}

// findRoot is scaffold.FindRoot: from dir upwards, the first directory
// holding .loopx/ or a loopx/ directory with *.cue files. ok is false
// when there is none, and for a directory whose path holds a glob
// metacharacter (FindRoot globs it; the program decides).
func findRoot(dir string) (string, bool) {
	a := abs(dir)
	if a == "" {
		return "", false
	}
	for d := a; ; d = path.Dir(d) {
		if strings.ContainsAny(d, `*?[\`) {
			return "", false
		}
		if fi, err := os.Stat(path.Join(d, ".loopx")); err == nil && fi.IsDir() {
			return d, true
		}
		if hasCue(path.Join(d, "loopx")) {
			return d, true
		}
		if path.Dir(d) == d {
			return "", false
		}
	}
}

// hasCue reports whether dir is a directory with an entry named *.cue.
func hasCue(dir string) bool {
	fh, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || !fi.IsDir() {
		return false
	}
	names, _ := fh.Readdirnames(-1)
	for _, n := range names {
		if strings.HasSuffix(n, ".cue") {
			return true
		}
	}
	return false
}

// newKey is a fresh idempotency key (wire.KeyLen hex digits) from the
// kernel's random source.
func newKey() (string, bool) {
	var b [wire.KeyLen / 2]byte
	fh, err := os.Open("/dev/urandom")
	if err != nil {
		return "", false
	}
	defer fh.Close()
	if _, err := io.ReadFull(fh, b[:]); err != nil {
		return "", false
	}
	return hex.EncodeToString(b[:]), true
}

// isTerminal reports whether fd is a terminal (golang.org/x/term's test:
// TCGETS succeeds).
func isTerminal(fd int) bool {
	var t syscall.Termios
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return e == 0
}

// evalSymlinks is filepath.EvalSymlinks on a Unix system: p (absolute
// and clean) with every symbolic link resolved; adapted from the Go
// project's path/filepath (BSD licence).
func evalSymlinks(p string) (string, error) {
	if !path.IsAbs(p) {
		return "", errors.New("not absolute")
	}
	volLen := 1
	vol := p[:1]
	dest := vol
	links := 0
	for start, end := volLen, volLen; start < len(p); start = end {
		for start < len(p) && p[start] == '/' {
			start++
		}
		end = start
		for end < len(p) && p[end] != '/' {
			end++
		}
		if end == start {
			break
		} else if p[start:end] == "." {
			continue
		} else if p[start:end] == ".." {
			var r int
			for r = len(dest) - 1; r >= volLen; r-- {
				if dest[r] == '/' {
					break
				}
			}
			if r < volLen || dest[r+1:] == ".." {
				if len(dest) > volLen {
					dest += "/"
				}
				dest += ".."
			} else {
				dest = dest[:r]
			}
			continue
		}
		if len(dest) > 0 && dest[len(dest)-1] != '/' {
			dest += "/"
		}
		dest += p[start:end]
		fi, err := os.Lstat(dest)
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			if !fi.Mode().IsDir() && end < len(p) {
				return "", syscall.ENOTDIR
			}
			continue
		}
		links++
		if links > 255 {
			return "", errors.New("too many links")
		}
		link, err := os.Readlink(dest)
		if err != nil {
			return "", err
		}
		p = link + p[end:]
		if len(link) > 0 && link[0] == '/' {
			dest, end, vol, volLen = link[:1], 1, link[:1], 1
		} else {
			var r int
			for r = len(dest) - 1; r >= volLen; r-- {
				if dest[r] == '/' {
					break
				}
			}
			if r < volLen {
				dest = vol
			} else {
				dest = dest[:r]
			}
			end = 0
		}
	}
	return path.Clean(dest), nil
}
