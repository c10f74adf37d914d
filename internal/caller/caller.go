// Package caller is who runs a loopx command: this process, or the client
// process a server (`loopx serve`) runs the command for. Where a command
// run in its own process reads its environment, its working directory and
// whether its standard input is a terminal, a command a server runs reads
// the same facts of its client, from /proc, through a *Process: never from
// what the client's request says. It imports only the standard library
// and golang.org/x/term.
package caller

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/term"
)

// Process is a client process's facts, read once when its request arrives.
// A nil *Process is this process: its methods then read os's.
type Process struct {
	// PID is the client's process id, in the server's pid namespace.
	PID int
	// Env is the environment the client started with
	// (/proc/PID/environ), KEY=VALUE.
	Env []string
	// Dir is its working directory (/proc/PID/cwd), absolute.
	Dir string
	// StdinTTY is true when its standard input is a terminal.
	StdinTTY bool
	// StdoutTTY and StderrTTY are true when its standard output and
	// error are terminals (what it prints may be coloured there).
	StdoutTTY, StderrTTY bool
}

// ErrGone is FromPID's error when the process is not there (it exited)
// or its facts cannot be read (another user's process).
var ErrGone = errors.New("the calling process cannot be read")

// FromPID reads process pid's facts from /proc: its start environment,
// its working directory and whether its standard input is a terminal
// (opened without becoming the reader's controlling terminal). Errors wrap
// ErrGone.
func FromPID(pid int) (*Process, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("%w: pid %d", ErrGone, pid)
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrGone, err)
	}
	dir, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil || !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("%w: working directory of process %d: %v", ErrGone, pid, err)
	}
	p := &Process{PID: pid, Dir: dir}
	for _, kv := range strings.Split(string(raw), "\x00") {
		if kv != "" {
			p.Env = append(p.Env, kv)
		}
	}
	p.StdinTTY, p.StdoutTTY, p.StderrTTY = fdIsTerminal(pid, 0), fdIsTerminal(pid, 1), fdIsTerminal(pid, 2)
	return p, nil
}

// fdIsTerminal reports whether process pid's descriptor fd is a terminal,
// opened without becoming the reader's controlling terminal and without
// waiting.
func fdIsTerminal(pid, fd int) bool {
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/%d", pid, fd), os.O_RDONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return term.IsTerminal(int(f.Fd()))
}

// NoProcess is the caller of a request that comes with no process loopx
// can read — an HTTP client of `loopx serve` — working in dir: no
// environment, no terminal, and PID -1, whose ancestry is unreadable
// (trust.AncestryOptions.From < 0), so such a caller is never taken for a
// human at a terminal.
func NoProcess(dir string) *Process { return &Process{PID: -1, Dir: dir} }

// Remote reports whether p is another process (a server's client).
func (p *Process) Remote() bool { return p != nil }

// LookupEnv is os.LookupEnv of the caller.
func (p *Process) LookupEnv(key string) (string, bool) {
	if p == nil {
		return os.LookupEnv(key)
	}
	// The first of duplicate keys wins, as for Go's own environment (a
	// loopx run in its own process).
	for _, kv := range p.Env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// Getenv is os.Getenv of the caller.
func (p *Process) Getenv(key string) string {
	v, _ := p.LookupEnv(key)
	return v
}

// Environ is os.Environ of the caller (a copy).
func (p *Process) Environ() []string {
	if p == nil {
		return os.Environ()
	}
	return append([]string(nil), p.Env...)
}

// Getwd is os.Getwd of the caller.
func (p *Process) Getwd() (string, error) {
	if p == nil {
		return os.Getwd()
	}
	return p.Dir, nil
}

// Pid is the caller's process id: the process whose parents are the
// caller's ancestry.
func (p *Process) Pid() int {
	if p == nil {
		return os.Getpid()
	}
	return p.PID
}

// IsTerminal reports whether f is a terminal (a client's standard input
// that a person types at).
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
