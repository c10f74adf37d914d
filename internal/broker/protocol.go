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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/loopx-dev/loopx/internal/broker/wire"
)

// ErrBadRequest wraps every reason ReadRequest refuses a request for.
var ErrBadRequest = errors.New("bad broker request")

// ReadRequest reads and checks a request's header line from r (at most
// MaxHeader bytes): JSON with no unknown field, V = Version, Argv of at
// most 4,096 arguments, Env only of PassedEnv, Cwd absolute and clean, a
// deadline not negative. Errors wrap ErrBadRequest (a version mismatch
// says which version this side speaks); io.EOF when r ended first.
func ReadRequest(r *bufio.Reader) (wire.Request, error) {
	var line []byte
	for {
		chunk, more, err := r.ReadLine()
		line = append(line, chunk...)
		if len(line) > wire.MaxHeader {
			return wire.Request{}, fmt.Errorf("%w: the header is longer than %d bytes", ErrBadRequest, wire.MaxHeader)
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) == 0 {
				return wire.Request{}, io.EOF
			}
			return wire.Request{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
		}
		if !more {
			break
		}
	}
	dec := json.NewDecoder(strings.NewReader(string(line)))
	dec.DisallowUnknownFields()
	var req wire.Request
	if err := dec.Decode(&req); err != nil {
		return wire.Request{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if dec.More() {
		return wire.Request{}, fmt.Errorf("%w: more than one JSON value on the header line", ErrBadRequest)
	}
	return req, Check(req)
}

// Check validates a decoded request req (ReadRequest's rules). Errors wrap
// ErrBadRequest.
func Check(req wire.Request) error {
	if req.V != wire.Version {
		return fmt.Errorf("%w: protocol version %d, this loopx speaks %d", ErrBadRequest, req.V, wire.Version)
	}
	if len(req.Argv) > 4096 {
		return fmt.Errorf("%w: %d arguments (at most 4096)", ErrBadRequest, len(req.Argv))
	}
	for k := range req.Env {
		if !passed(k) {
			return fmt.Errorf("%w: environment variable %q is not passed (only %s)", ErrBadRequest, k, strings.Join(wire.PassedEnv, ", "))
		}
	}
	if !filepath.IsAbs(req.Cwd) || filepath.Clean(req.Cwd) != req.Cwd {
		return fmt.Errorf("%w: cwd %q is not an absolute, clean path", ErrBadRequest, req.Cwd)
	}
	if req.DeadlineMS < 0 {
		return fmt.Errorf("%w: deadline_ms %d is negative", ErrBadRequest, req.DeadlineMS)
	}
	if req.Key != "" && !validKey(req.Key) {
		return fmt.Errorf("%w: key is not %d lowercase hex digits", ErrBadRequest, wire.KeyLen)
	}
	if req.Retry && req.Key == "" {
		return fmt.Errorf("%w: a retry without a key", ErrBadRequest)
	}
	return nil
}

func validKey(k string) bool {
	if len(k) != wire.KeyLen {
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
	for _, p := range wire.PassedEnv {
		if k == p {
			return true
		}
	}
	return false
}
