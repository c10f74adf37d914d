package broker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Server runs the requests of one confinement's loopx commands as loopx
// processes outside it, with an identity the server fixes.
type Server struct {
	// Exe is the loopx executable each request runs (absolute).
	Exe string
	// Dir is the work tree: a request's Cwd outside it runs in Dir.
	Dir string
	// Env is every request's environment but the request's PassedEnv
	// values (which replace Env's own): who the caller is (LOOPX_ROUND,
	// LOOPX_AGENT, …) is set here and nowhere else.
	Env []string
	// Peer checks the connecting process, as the kernel names it
	// (SO_PEERCRED: its pid in this process's namespace, its uid); an
	// error refuses the request (exit 1, the error on its stderr). Nil
	// refuses every request.
	Peer func(pid, uid int) error
	// Run, when set, runs each request in place of a process of Exe:
	// pid is the peer's (as Peer was given it), stdin the request's
	// standard input; it returns the exit code. Dir and Env are then
	// unused: Run takes what it needs from the peer.
	Run func(ctx context.Context, pid int, req Request, stdin io.Reader, stdout, stderr io.Writer) int
}

// Serve answers connections on l until l is closed or ctx is done (then
// the commands still running are killed); it returns nil then.
func (s *Server) Serve(ctx context.Context, l *net.UnixListener) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	for {
		conn, err := l.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			s.handle(ctx, conn)
		}()
	}
}

// frames writes one stream's output as frames of its kind.
type frames struct {
	mu   *sync.Mutex
	w    io.Writer
	kind byte
}

func (f frames) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for len(p) > 0 {
		c := min(len(p), MaxFrame)
		if err := WriteFrame(f.w, f.kind, p[:c]); err != nil {
			return n, err
		}
		n, p = n+c, p[c:]
	}
	return n, nil
}

func (s *Server) handle(ctx context.Context, conn *net.UnixConn) {
	mu := &sync.Mutex{}
	stderr := frames{mu, conn, FrameStderr}
	exit := func(code int) {
		b, _ := json.Marshal(Exit{Code: code})
		mu.Lock()
		defer mu.Unlock()
		_ = WriteFrame(conn, FrameExit, b)
	}
	pid, uid, err := peer(conn)
	if err == nil {
		if s.Peer == nil {
			err = errors.New("this broker serves no one")
		} else {
			err = s.Peer(pid, uid)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopx broker: refused: %v\n", err)
		exit(1)
		return
	}
	br := bufio.NewReader(conn)
	req, err := ReadRequest(br)
	if err != nil {
		fmt.Fprintf(stderr, "loopx broker: %v\n", err)
		exit(2)
		return
	}
	if req.DeadlineMS > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(req.DeadlineMS)*time.Millisecond)
		defer cancel()
	}
	if s.Run != nil {
		exit(s.Run(ctx, pid, req, br, frames{mu, conn, FrameStdout}, stderr))
		return
	}
	cmd := exec.CommandContext(ctx, s.Exe, req.Argv...)
	cmd.Dir = s.Dir
	if rel, err := filepath.Rel(s.Dir, req.Cwd); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		cmd.Dir = req.Cwd
	}
	cmd.Env = s.env(req.Env)
	cmd.Stdout, cmd.Stderr = frames{mu, conn, FrameStdout}, stderr
	cmd.WaitDelay = 5 * time.Second
	in, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopx broker: %v\n", err)
		exit(3)
		return
	}
	go func() {
		_, _ = io.Copy(in, br)
		in.Close()
	}()
	err = cmd.Wait()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		code = ee.ExitCode()
	case err != nil:
		fmt.Fprintf(stderr, "loopx broker: %v\n", err)
		code = 3
	}
	exit(code)
}

// env is Env with the request's passed variables in place of Env's own.
func (s *Server) env(passed map[string]string) []string {
	var env []string
	for _, kv := range s.Env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := passed[k]; !ok {
			env = append(env, kv)
		}
	}
	for _, k := range PassedEnv {
		if v, ok := passed[k]; ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// DescendsFrom reports whether process pid is ancestor or one of its
// descendants, walking the parent links (parentOf: /proc/PID/stat on
// Linux, as this process's pid namespace names them) up to init.
func DescendsFrom(pid, ancestor int) bool {
	for i := 0; pid > 1 && i < 4096; i++ {
		if pid == ancestor {
			return true
		}
		ppid, err := parentOf(pid)
		if err != nil {
			return false
		}
		pid = ppid
	}
	return pid == ancestor
}
