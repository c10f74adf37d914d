// Package broker is the protocol by which a loopx command inside an agent's
// confinement has loopx run it outside: one request (the arguments, a few
// environment variables, the working directory, standard input as a
// stream) over a unix socket, answered with the command's standard output
// and error as frames and its exit code. The server decides who the caller
// is from the socket's peer (SO_PEERCRED), never from the request. It
// imports only the standard library and golang.org/x/sys.
package broker

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Version is the protocol version a request carries (Request.V); a server
// answers another version with exit code 2 and says which it speaks.
const Version = 2

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

// ErrBadRequest wraps every reason ReadRequest refuses a request for.
var ErrBadRequest = errors.New("bad broker request")

// ReadRequest reads and checks a request's header line from r (at most
// MaxHeader bytes): JSON with no unknown field, V = Version, Argv of at
// most 4,096 arguments, Env only of PassedEnv, Cwd absolute and clean, a
// deadline not negative. Errors wrap ErrBadRequest (a version mismatch
// says which version this side speaks); io.EOF when r ended first.
func ReadRequest(r *bufio.Reader) (Request, error) {
	var line []byte
	for {
		chunk, more, err := r.ReadLine()
		line = append(line, chunk...)
		if len(line) > MaxHeader {
			return Request{}, fmt.Errorf("%w: the header is longer than %d bytes", ErrBadRequest, MaxHeader)
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) == 0 {
				return Request{}, io.EOF
			}
			return Request{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
		}
		if !more {
			break
		}
	}
	dec := json.NewDecoder(strings.NewReader(string(line)))
	dec.DisallowUnknownFields()
	var req Request
	if err := dec.Decode(&req); err != nil {
		return Request{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if dec.More() {
		return Request{}, fmt.Errorf("%w: more than one JSON value on the header line", ErrBadRequest)
	}
	return req, req.Check()
}

// Check validates a decoded request (ReadRequest's rules). Errors wrap
// ErrBadRequest.
func (req Request) Check() error {
	if req.V != Version {
		return fmt.Errorf("%w: protocol version %d, this loopx speaks %d", ErrBadRequest, req.V, Version)
	}
	if len(req.Argv) > 4096 {
		return fmt.Errorf("%w: %d arguments (at most 4096)", ErrBadRequest, len(req.Argv))
	}
	for k := range req.Env {
		if !passed(k) {
			return fmt.Errorf("%w: environment variable %q is not passed (only %s)", ErrBadRequest, k, strings.Join(PassedEnv, ", "))
		}
	}
	if !filepath.IsAbs(req.Cwd) || filepath.Clean(req.Cwd) != req.Cwd {
		return fmt.Errorf("%w: cwd %q is not an absolute, clean path", ErrBadRequest, req.Cwd)
	}
	if req.DeadlineMS < 0 {
		return fmt.Errorf("%w: deadline_ms %d is negative", ErrBadRequest, req.DeadlineMS)
	}
	if req.Key != "" && !validKey(req.Key) {
		return fmt.Errorf("%w: key is not %d lowercase hex digits", ErrBadRequest, KeyLen)
	}
	if req.Retry && req.Key == "" {
		return fmt.Errorf("%w: a retry without a key", ErrBadRequest)
	}
	return nil
}

func validKey(k string) bool {
	if len(k) != KeyLen {
		return false
	}
	for _, c := range k {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func passed(k string) bool {
	for _, p := range PassedEnv {
		if k == p {
			return true
		}
	}
	return false
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
	if !strings.ContainsRune("oepxicrskwdq", rune(kind)) {
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
