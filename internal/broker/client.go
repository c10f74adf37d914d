package broker

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// Socket returns the broker socket a loopx command should be a client of,
// "" when none: $LOOPX_BROKER when set, else DefaultSocket when a socket is
// there (inside a confinement loopx run made; the caller may have cleared
// its environment).
func Socket() string {
	if s := os.Getenv(SocketEnv); s != "" {
		return s
	}
	if fi, err := os.Stat(DefaultSocket); err == nil && fi.Mode()&os.ModeSocket != 0 {
		return DefaultSocket
	}
	return ""
}

// NewRequest is the request for loopx's arguments argv from this process:
// its working directory and its values of PassedEnv.
func NewRequest(argv []string) (Request, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return Request{}, err
	}
	req := Request{V: Version, Argv: argv, Cwd: cwd, Env: map[string]string{}}
	for _, k := range PassedEnv {
		if v, ok := os.LookupEnv(k); ok {
			req.Env[k] = v
		}
	}
	return req, nil
}

// Call sends req to the broker listening on socket, streams stdin to it
// (nil: none) and copies the answer's frames to stdout and stderr; it
// returns the command's exit code. A prompt is answered "no terminal".
// Errors: the socket cannot be reached, or the answer ended before its
// exit frame (the caller exits 3).
func Call(socket string, req Request, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return 0, fmt.Errorf("loopx broker at %s: %w", socket, err)
	}
	defer conn.Close()
	return CallConn(conn.(*net.UnixConn), socket, req, stdin, stdout, stderr, nil)
}

// ErrAnswerLost is wrapped in CallConn's error when the connection ended
// after the whole request was sent and before the exit frame (not at a
// deadline): the command may have run. A keyed request may then be sent
// again (Request.Retry) for its answer.
var ErrAnswerLost = errors.New("the connection ended before the command's exit")

// Asker answers a server's prompt: it shows text on the caller's
// controlling terminal and returns the line typed; an error says why it
// could not (no terminal).
type Asker func(text string) (string, error)

// CallConn is Call over conn, already connected to the server at socket
// (named in errors): a caller that checks the server first (PeerOf) or
// bounds the call (a deadline on conn) dials itself. ask answers the
// server's prompts (nil: "no terminal"); while it waits for a person,
// conn's deadline is lifted (a person types at their own pace), and set
// again after, two minutes on.
func CallConn(uc *net.UnixConn, socket string, req Request, stdin io.Reader, stdout, stderr io.Writer, ask Asker) (int, error) {
	return CallConnWith(uc, socket, req, stdin, stdout, stderr, ask, nil, nil)
}

// Starter starts a command a server asks its client to start (FrameSpawn):
// as this process's child, in a process group of its own. It returns the
// child's process id, wait (its exit code, -1 when a signal ended it) and
// stop (SIGTERM to its group, then SIGKILL), or why it did not start.
type Starter func(sp Spawn) (pid int, wait func() (int, error), stop func(), err error)

// CallConnWith is CallConn for a client that also starts commands for the
// server (req.Spawn, start: nil refuses them) and tells it when the
// person asks it to stop (interrupt closed: FrameInterrupt, once; nil:
// never).
func CallConnWith(uc *net.UnixConn, socket string, req Request, stdin io.Reader, stdout, stderr io.Writer, ask Asker, start Starter, interrupt <-chan struct{}) (int, error) {
	var wmu sync.Mutex
	send := func(kind byte, payload []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		return WriteFrame(uc, kind, payload)
	}
	// A server that refuses the caller answers before reading the request:
	// a failed write is not the end, the answer is read all the same.
	werr := WriteRequest(uc, req)
	go func() {
		if werr != nil {
			return
		}
		if stdin != nil {
			buf := make([]byte, 32<<10)
			for {
				n, err := stdin.Read(buf)
				if n > 0 && send(FrameStdin, buf[:n]) != nil {
					return
				}
				if err != nil {
					break
				}
			}
		}
		_ = send(FrameStdinEnd, nil)
	}()
	if interrupt != nil {
		go func() {
			<-interrupt
			_ = send(FrameInterrupt, nil)
		}()
	}
	var stopMu sync.Mutex
	stop := func() {}
	// A command still running when the session ends (the server gone)
	// is stopped: the agent's processes never outlive their loop.
	defer func() {
		stopMu.Lock()
		st := stop
		stopMu.Unlock()
		st()
	}()
	r := bufio.NewReader(uc)
	for {
		kind, payload, err := ReadFrame(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			if werr != nil {
				err = werr
			} else if !errors.Is(err, os.ErrDeadlineExceeded) {
				// The whole request went: the command may have run.
				err = fmt.Errorf("%w: %w", ErrAnswerLost, err)
			}
			return 0, fmt.Errorf("loopx broker at %s: the answer ended early: %w", socket, err)
		}
		switch kind {
		case FrameStdout:
			_, _ = stdout.Write(payload)
		case FrameStderr:
			_, _ = stderr.Write(payload)
		case FramePrompt:
			var p Prompt
			_ = json.Unmarshal(payload, &p)
			rep := Reply{Error: "no terminal to ask on"}
			if ask != nil {
				_ = uc.SetDeadline(time.Time{})
				typed, err := ask(p.Text)
				rep = Reply{Typed: typed}
				if err != nil {
					rep = Reply{Error: err.Error()}
				}
				_ = uc.SetDeadline(time.Now().Add(2 * time.Minute))
			}
			b, _ := json.Marshal(rep)
			if err := send(FrameReply, b); err != nil {
				return 0, fmt.Errorf("loopx broker at %s: %w", socket, err)
			}
		case FrameSpawn:
			var sp Spawn
			var ans Spawned
			if err := json.Unmarshal(payload, &sp); err != nil || len(sp.Argv) == 0 {
				ans.Error = "a malformed spawn frame"
			} else if start == nil {
				ans.Error = "this client starts no command"
			}
			var wait func() (int, error)
			if ans.Error == "" {
				pid, w, st, err := start(sp)
				if err != nil {
					ans.Error = err.Error()
				} else {
					ans.PID, wait = pid, w
					stopMu.Lock()
					stop = st
					stopMu.Unlock()
				}
			}
			b, _ := json.Marshal(ans)
			if err := send(FrameSpawned, b); err != nil {
				if wait != nil {
					stop()
				}
				return 0, fmt.Errorf("loopx broker at %s: %w", socket, err)
			}
			if wait != nil {
				// Its end is said after it started (FrameSpawned first).
				go func() {
					code, err := wait()
					stopMu.Lock()
					stop = func() {}
					stopMu.Unlock()
					d := Done{Code: code}
					if err != nil {
						d.Error = err.Error()
					}
					b, _ := json.Marshal(d)
					_ = send(FrameDone, b)
				}()
			}
		case FrameKill:
			stopMu.Lock()
			st := stop
			stopMu.Unlock()
			go st()
		case FrameExit:
			var x Exit
			if err := json.Unmarshal(payload, &x); err != nil {
				return 0, fmt.Errorf("loopx broker at %s: exit frame: %w", socket, err)
			}
			return x.Code, nil
		default:
			return 0, fmt.Errorf("loopx broker at %s: a frame of kind %q from the server", socket, kind)
		}
	}
}

// PeerOf is the process at conn's other end as the kernel names it
// (SO_PEERCRED on Linux): its pid and uid.
func PeerOf(conn *net.UnixConn) (pid, uid int, err error) { return peer(conn) }
