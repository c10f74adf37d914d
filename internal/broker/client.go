package broker

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
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
// returns the command's exit code. Errors: the socket cannot be reached,
// or the answer ended before its exit frame (the caller exits 3).
func Call(socket string, req Request, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return 0, fmt.Errorf("loopx broker at %s: %w", socket, err)
	}
	defer conn.Close()
	return CallConn(conn.(*net.UnixConn), socket, req, stdin, stdout, stderr)
}

// CallConn is Call over conn, already connected to the server at socket
// (named in errors): a caller that checks the server first (PeerOf) or
// bounds the call (a deadline on conn) dials itself.
func CallConn(uc *net.UnixConn, socket string, req Request, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	conn := uc
	// A server that refuses the caller answers before reading the request:
	// a failed write is not the end, the answer is read all the same.
	werr := WriteRequest(conn, req)
	go func() {
		if stdin != nil && werr == nil {
			_, _ = io.Copy(conn, stdin)
		}
		_ = uc.CloseWrite()
	}()
	r := bufio.NewReader(conn)
	for {
		kind, payload, err := ReadFrame(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			if werr != nil {
				err = werr
			}
			return 0, fmt.Errorf("loopx broker at %s: the answer ended early: %w", socket, err)
		}
		switch kind {
		case FrameStdout:
			_, _ = stdout.Write(payload)
		case FrameStderr:
			_, _ = stderr.Write(payload)
		case FrameExit:
			var x Exit
			if err := json.Unmarshal(payload, &x); err != nil {
				return 0, fmt.Errorf("loopx broker at %s: exit frame: %w", socket, err)
			}
			return x.Code, nil
		}
	}
}

// PeerOf is the process at conn's other end as the kernel names it
// (SO_PEERCRED on Linux): its pid and uid.
func PeerOf(conn *net.UnixConn) (pid, uid int, err error) { return peer(conn) }
