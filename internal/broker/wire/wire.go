// Package wire is the broker protocol's messages and its client side
// (internal/broker is the protocol's server; its package doc says what
// the protocol is): the request, the frames, and the call that sends a
// request and relays the answer. It imports nothing of the standard
// library's network stack and nothing heavier, so that a loopx process
// can forward its command to a running server before the rest of the
// program is initialised (cmd/loopx/internal/early).
package wire

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Version is the protocol version a request carries (Request.V); a server
// answers another version with exit code 2 and says which it speaks.
const Version = 3

// SocketEnv is the environment variable naming the broker's socket inside a
// confinement; DefaultSocket is where loopx run binds it there, which a
// client uses when the variable is unset (a command run under env -i is a
// client all the same).
const (
	SocketEnv     = "LOOPX_BROKER"
	DefaultSocket = "/run/loopx/broker.sock"
)

// MaxHeader bounds a request's header line (the JSON before standard
// input), in bytes; MaxFrame bounds one answer frame's payload.
const (
	MaxHeader = 1 << 20
	MaxFrame  = 1 << 20
)

// PassedEnv are the only environment variables a request may carry; the
// server drops any other (who the caller is comes from the server).
var PassedEnv = []string{"LOOPX_FORMAT", "NO_COLOR", "TERM", "COLUMNS", "LANG", "LC_ALL"}

// Request is the first line of a connection, JSON: a client then sends its
// standard input and closes its side for writing.
type Request struct {
	// V is the protocol version (Version).
	V int `json:"v"`
	// Argv are loopx's arguments, without the program name.
	Argv []string `json:"argv"`
	// Env holds the caller's values of PassedEnv it has set.
	Env map[string]string `json:"env,omitempty"`
	// Cwd is the caller's working directory, absolute (a confinement shows
	// the work tree at its own path outside).
	Cwd string `json:"cwd"`
	// DeadlineMS bounds the command's run in milliseconds (0: none).
	DeadlineMS int64 `json:"deadline_ms,omitempty"`
	// Key is the idempotency key the client made for a command that may
	// change state (32 lowercase hex digits, random): a server that keeps
	// answers (Server.Answers) runs a key once, and answers it again with
	// what it answered the first time.
	Key string `json:"key,omitempty"`
	// Retry marks a request sent again, with its first Key, after the
	// connection of the first ended before its exit frame: a server never
	// runs a retry; it answers with the recorded answer, or refuses (exit
	// 3) when it keeps none for this client and key.
	Retry bool `json:"retry,omitempty"`
	// Spawn says the client starts the agent's processes for the server
	// (FrameSpawn): loopx run and watch --exec, whose agent processes are
	// the caller's children, never the server's.
	Spawn bool `json:"spawn,omitempty"`
}

// MaxAnswerOutput is how much output of one keyed command's answer a
// server keeps to give again (broker.Answers), and a client keeps to
// compare an answer given again with what it already wrote.
const MaxAnswerOutput = 1 << 20

// KeyLen is the length of an idempotency key (Request.Key), in hex digits.
const KeyLen = 32

// Frame kinds. From the server: standard output, standard error, a
// prompt for the client's terminal (a Prompt in JSON), and the exit (the
// last frame; an Exit in JSON). From the client, after the request's
// header line: standard input, its end (empty), and the reply to a
// prompt (a Reply in JSON). A connection that ends before its exit frame
// (either side) ends the command: a server cancels the command of a
// client that went away.
const (
	FrameStdout   byte = 'o'
	FrameStderr   byte = 'e'
	FramePrompt   byte = 'p'
	FrameExit     byte = 'x'
	FrameStdin    byte = 'i'
	FrameStdinEnd byte = 'c'
	FrameReply    byte = 'r'
	// FrameStdinWant (from the server, empty) asks for the client's
	// standard input: the command began to read it. A client sends none
	// before (a command that reads none leaves it to the caller's next
	// command, as it does in its own process).
	FrameStdinWant byte = 'n'
)

// Frames of a session whose client starts the agent's processes for the
// server (Request.Spawn: loopx run and watch --exec through loopx serve,
// whose agent processes must be the caller's children). From the server:
// start a command (s, a Spawn in JSON) and stop it (k, empty: its process
// group gets SIGTERM, then SIGKILL). From the client: the command started
// (w, a Spawned in JSON), it ended (d, a Done in JSON), and the person
// asked the client to stop (q, empty: the server cancels the command, and
// the session goes on until its exit frame).
const (
	FrameSpawn     byte = 's'
	FrameKill      byte = 'k'
	FrameSpawned   byte = 'w'
	FrameDone      byte = 'd'
	FrameInterrupt byte = 'q'
)

// Spawn asks the client to start Argv in Dir with Env, in a process group
// of its own, its output the client's standard error.
type Spawn struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
}

// Spawned is the client's answer to a Spawn: the process id it got (in
// the client's pid namespace), or Error saying why it did not start.
type Spawned struct {
	PID   int    `json:"pid,omitempty"`
	Error string `json:"error,omitempty"`
}

// Done says the spawned command ended: its exit code (-1 when a signal
// ended it), or Error saying why it could not be waited for.
type Done struct {
	Code  int    `json:"code"`
	Error string `json:"error,omitempty"`
}

// Prompt asks the client to show Text on its controlling terminal and
// read one line back (a typed confirmation): the text is asserted by the
// client, on the terminal the human sits at, as a command run in its own
// process does.
type Prompt struct {
	Text string `json:"text"`
}

// Reply is the client's answer to a Prompt: the line typed (trimmed), or
// Error saying why there was no terminal to ask on.
type Reply struct {
	Typed string `json:"typed,omitempty"`
	Error string `json:"error,omitempty"`
}

// Exit is the last frame's payload: the command's exit code.
type Exit struct {
	Code int `json:"code"`
}

// WriteRequest writes req's header line to w.
func WriteRequest(w io.Writer, req Request) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteFrame writes one answer frame: its kind, the payload's length
// (4 bytes, big-endian) and the payload (at most MaxFrame bytes).
func WriteFrame(w io.Writer, kind byte, payload []byte) error {
	if len(payload) > MaxFrame {
		return fmt.Errorf("broker frame of %d bytes (at most %d)", len(payload), MaxFrame)
	}
	var hdr [5]byte
	hdr[0] = kind
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(payload)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}

// ReadFrame reads one answer frame. Errors: io.EOF before a frame starts,
// io.ErrUnexpectedEOF inside one, an unknown kind or a payload longer than
// MaxFrame.
func ReadFrame(r io.Reader) (kind byte, payload []byte, err error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	kind = hdr[0]
	if !strings.ContainsRune("oepxicrskwdqn", rune(kind)) {
		return 0, nil, fmt.Errorf("broker frame of unknown kind %q", kind)
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > MaxFrame {
		return 0, nil, fmt.Errorf("broker frame of %d bytes (at most %d)", n, MaxFrame)
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return kind, payload, nil
}

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

// Conn is a connection to a server: a *net.UnixConn, or an *os.File
// over a connected socket (a client that dials without package net).
type Conn interface {
	io.ReadWriter
	SetDeadline(t time.Time) error
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
func CallConn(uc Conn, socket string, req Request, stdin io.Reader, stdout, stderr io.Writer, ask Asker) (int, error) {
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
func CallConnWith(uc Conn, socket string, req Request, stdin io.Reader, stdout, stderr io.Writer, ask Asker, start Starter, interrupt <-chan struct{}) (int, error) {
	var wmu sync.Mutex
	send := func(kind byte, payload []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		return WriteFrame(uc, kind, payload)
	}
	// A server that refuses the caller answers before reading the request:
	// a failed write is not the end, the answer is read all the same.
	werr := WriteRequest(uc, req)
	// Standard input goes when the server asks for it (FrameStdinWant),
	// once: a command that never reads it must not consume it (a shell
	// loop reading its lines would lose them to the first command).
	var pumpOnce sync.Once
	pump := func() {
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
	}
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
		case FrameStdinWant:
			pumpOnce.Do(pump)
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

// AskTerminal writes prompt to the process's controlling terminal,
// /dev/tty (never stdin, so that an agent piping input cannot confirm for
// a human), and reads one line back, trimmed. Errors: the terminal cannot
// be opened (no controlling terminal).
func AskTerminal(prompt string) (string, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return "", err
	}
	defer tty.Close()
	fmt.Fprint(tty, prompt)
	line, _ := bufio.NewReader(tty).ReadString('\n')
	return strings.TrimSpace(line), nil
}
