// Package httpapi is the HTTP way in that `loopx serve` mounts on its
// loopback listener:
//
//   - OPA's Data API for the four decisions:
//     POST (or GET with ?input=) /v1/data/loopx/<run|permission|claim|gate>/decision
//     with {"input": {...}}, answered {"result": DECISION, "decision_id": ID},
//     where DECISION is the document `loopx decide … --json` prints;
//   - the `--json` documents of the read commands under /v1/ (goals, todos,
//     gates, evidence, rounds, quota, agents, decisions, events, status);
//   - GET /v1/stream, server-sent events of state changes and changed
//     decisions;
//   - GET /health in OPA's shape.
//
// Every answer is the output of the loopx command the request names, run
// by Config.Run inside the server (the same engine call, the same
// document, the same decision log line as at a terminal): this package
// only translates HTTP to a command line and the command's exit code to a
// status.
//
// Every request is checked before routing: the Host header must name a
// loopback address (DNS rebinding), bodies over 1 MiB are refused with 413,
// and every /v1 request needs "Authorization: Bearer <token>" (401
// otherwise, saying nothing else). Unknown routes answer 404 in JSON.
package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// MaxBody is the largest request body accepted, in bytes (1 MiB); a larger
// one is answered 413.
const MaxBody = 1 << 20

// TokenFile is the token's file name in the anchor directory.
const TokenFile = "serve.token"

// RunFunc runs one loopx command line (argv without the program name, e.g.
// ["decide", "should-run", "--goal", "g1", "--agent", "a1", "--json"])
// with stdout and stderr, and returns its exit code (0 ok, 1 the decision
// says no, 2 usage or input error, 3 internal error). It returns when the
// command ends or ctx is done (a stream's client went away).
type RunFunc func(ctx context.Context, argv []string, stdout, stderr io.Writer) int

// Config is what the server hands the API.
type Config struct {
	// Run runs the command a request names (the server's: over its kept
	// store, as a caller with no terminal and no process loopx can read).
	Run RunFunc
	// Token is the bearer token (EnsureToken's result).
	Token string
	// StateDir is the project's .loopx directory: /v1/stream watches its
	// change marker (state.rev).
	StateDir string
	// Session, when set, reports whether a request carries a live
	// dashboard session (its cookie): such a request reads /v1 without
	// the bearer token, as the page does.
	Session func(*http.Request) bool
	// Page, when set, serves the paths Owns claims (the dashboard); the
	// Host and size checks apply to it too.
	Page http.Handler
	// Owns reports whether a path is Page's.
	Owns func(path string) bool
	// Stop, when set, is closed when the server stops: the streams of
	// events end then (a request that never ends would hold the stop).
	Stop <-chan struct{}
}

// API is the HTTP handler; build it with New.
type API struct {
	cfg Config
	mux *http.ServeMux
}

// New checks cfg and builds the handler. It fails when Run or Token is
// missing.
func New(cfg Config) (*API, error) {
	if cfg.Run == nil || cfg.Token == "" {
		return nil, errors.New("httpapi: Config needs Run and Token")
	}
	a := &API{cfg: cfg, mux: http.NewServeMux()}
	a.mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, struct{}{}) })
	a.mux.HandleFunc("/v1/data/", a.data)
	a.mux.HandleFunc("/v1/data", a.data)
	a.mux.HandleFunc("/v1/stream", a.stream)
	for name := range documents {
		a.mux.HandleFunc("/v1/"+name, a.document(name))
		a.mux.HandleFunc("/v1/"+name+"/{id}", a.document(name))
	}
	a.mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusNotFound, apiError{Code: "resource_not_found", Message: "unknown route"})
	})
	return a, nil
}

// EnsureToken returns the token stored in <anchorDir>/serve.token, creating
// it (32 random bytes, hex, mode 0600) when absent. The file is read and
// written without following a link. Errors: the file's.
func EnsureToken(anchorDir string) (string, error) {
	p := filepath.Join(anchorDir, TokenFile)
	if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0); err == nil {
		b, rerr := io.ReadAll(io.LimitReader(f, 4096))
		f.Close()
		if tok := strings.TrimSpace(string(b)); rerr == nil && len(tok) >= 32 {
			return tok, os.Chmod(p, 0o600)
		}
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(buf)
	tmp := p + ".tmp"
	_ = os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return tok, os.Rename(tmp, p)
}

// apiError is OPA's error shape (v1/server/types.ErrorV1): code, message,
// and, when the command gave them, its errors (code, message, location).
type apiError struct {
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Errors  []json.RawMessage `json:"errors,omitempty"`
}

// ServeHTTP checks Host, size and token, then routes.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("Cache-Control", "no-store")
	if !loopbackHost(r.Host) {
		writeJSON(w, http.StatusForbidden, apiError{Code: "forbidden", Message: "host not allowed"})
		return
	}
	if r.ContentLength > MaxBody {
		writeJSON(w, http.StatusRequestEntityTooLarge, apiError{Code: "request_too_large", Message: "body over 1 MiB"})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	if a.cfg.Page != nil && a.cfg.Owns != nil && a.cfg.Owns(r.URL.Path) {
		a.cfg.Page.ServeHTTP(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/v1/") && !a.authorized(r) {
		writeJSON(w, http.StatusUnauthorized, apiError{Code: "unauthorized", Message: "unauthorized"})
		return
	}
	a.mux.ServeHTTP(w, r)
}

// authorized reports whether r carries the bearer token or, for a read
// (GET), a live dashboard session.
func (a *API) authorized(r *http.Request) bool {
	if got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return subtle.ConstantTimeCompare([]byte(got), []byte(a.cfg.Token)) == 1
	}
	return r.Method == http.MethodGet && a.cfg.Session != nil && a.cfg.Session(r)
}

// loopbackHost accepts 127.0.0.1, localhost and [::1], with or without a
// port.
func loopbackHost(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	return h == "127.0.0.1" || h == "localhost" || h == "::1" || h == "[::1]"
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
