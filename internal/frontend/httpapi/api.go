// Package httpapi is the HTTP way in that `loopx serve` mounts on its
// loopback listener: OPA's Data API for the decisions
// (POST /v1/data/loopx/<run|permission>/decision with {"input": {...}},
// answered {"result": DECISION, "decision_id": ...}, where DECISION is the
// document `loopx decide ... --json` prints) and GET /health in OPA's
// shape.
//
// The seam: the server calls EnsureToken(anchorDir) at start, then
// New(Config{Open, Lock, ...}) and mounts the returned *API (an
// http.Handler). Open returns the engine the server keeps warm; Lock, when
// set, serialises every engine call with the server's other clients.
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
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
)

// MaxBody is the largest request body accepted, in bytes (1 MiB); a larger
// one is answered 413.
const MaxBody = 1 << 20

// TokenFile is the token's file name in the anchor directory.
const TokenFile = "serve.token"

// Config is what the server hands the API.
type Config struct {
	// Open returns the engine decisions are asked of (the server's warm
	// one); it is called once per request.
	Open func() (*engine.Engine, error)
	// Lock, when non-nil, is held around every engine call.
	Lock sync.Locker
	// Token is the bearer token (EnsureToken's result).
	Token string
}

// API is the HTTP handler; build it with New.
type API struct {
	cfg Config
	mux *http.ServeMux
}

// New checks cfg and builds the handler. It fails when Open or Token is
// missing.
func New(cfg Config) (*API, error) {
	if cfg.Open == nil || cfg.Token == "" {
		return nil, errors.New("httpapi: Config needs Open and Token")
	}
	a := &API{cfg: cfg, mux: http.NewServeMux()}
	a.mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, struct{}{}) })
	a.mux.HandleFunc("/v1/data/", a.data)
	a.mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusNotFound, apiError{Code: "resource_not_found", Message: "unknown route"})
	})
	return a, nil
}

// EnsureToken returns the token stored in <anchorDir>/serve.token, creating
// it (32 random bytes, hex, mode 0600) when absent.
func EnsureToken(anchorDir string) (string, error) {
	p := filepath.Join(anchorDir, TokenFile)
	if b, err := os.ReadFile(p); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b)), nil
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(buf)
	if err := os.WriteFile(p, []byte(tok+"\n"), 0o600); err != nil {
		return "", err
	}
	return tok, os.Chmod(p, 0o600)
}

// apiError is OPA's error shape (v1/server/types.ErrorV1).
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ServeHTTP checks Host, size and token, then routes.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	if !loopbackHost(r.Host) {
		writeJSON(w, http.StatusForbidden, apiError{Code: "forbidden", Message: "host not allowed"})
		return
	}
	if r.ContentLength > MaxBody {
		writeJSON(w, http.StatusRequestEntityTooLarge, apiError{Code: "request_too_large", Message: "body over 1 MiB"})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	if strings.HasPrefix(r.URL.Path, "/v1/") && !a.authorized(r) {
		writeJSON(w, http.StatusUnauthorized, apiError{Code: "unauthorized", Message: "unauthorized"})
		return
	}
	a.mux.ServeHTTP(w, r)
}

func (a *API) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(a.cfg.Token)) == 1
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

// decisionInput is the request fields of a decision; state, health and
// now are built by the server and refused in a request.
type decisionInput struct {
	Goal    string   `json:"goal"`
	Agent   string   `json:"agent"`
	Tool    string   `json:"tool"`
	Paths   []string `json:"paths"`
	Command string   `json:"command"`
	Action  string   `json:"action"`
}

func (a *API) data(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && r.Method != http.MethodGet {
		writeJSON(w, http.StatusMethodNotAllowed, apiError{Code: "method_not_allowed", Message: r.Method})
		return
	}
	var which string
	switch r.URL.Path {
	case "/v1/data/loopx/run/decision":
		which = "run"
	case "/v1/data/loopx/permission/decision":
		which = "permission"
	case "/v1/data/loopx/claim/decision", "/v1/data/loopx/gate/decision":
		// Defined documents this API does not serve yet: never an empty
		// (undefined) answer a client could read as "no objection".
		writeJSON(w, http.StatusNotImplemented, apiError{Code: "not_implemented", Message: "this decision is not served over HTTP yet; use loopx decide claim / loopx decide gate-answer"})
		return
	default:
		writeJSON(w, http.StatusOK, struct{}{}) // undefined document
		return
	}
	var body struct {
		Input map[string]json.RawMessage `json:"input"`
	}
	if r.Method == http.MethodPost {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			var mb *http.MaxBytesError
			if errors.As(err, &mb) {
				writeJSON(w, http.StatusRequestEntityTooLarge, apiError{Code: "request_too_large", Message: "body over 1 MiB"})
				return
			}
			writeJSON(w, http.StatusBadRequest, apiError{Code: "invalid_parameter", Message: "body contains malformed input document: " + err.Error()})
			return
		}
	}
	for _, k := range []string{"state", "health", "now"} {
		if _, ok := body.Input[k]; ok {
			writeJSON(w, http.StatusBadRequest, apiError{Code: "invalid_parameter", Message: "input." + k + " is built by the server"})
			return
		}
	}
	raw, _ := json.Marshal(body.Input)
	var in decisionInput
	if err := json.Unmarshal(raw, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Code: "invalid_parameter", Message: err.Error()})
		return
	}
	if a.cfg.Lock != nil {
		a.cfg.Lock.Lock()
		defer a.cfg.Lock.Unlock()
	}
	e, err := a.cfg.Open()
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{Code: "internal_error", Message: err.Error()})
		return
	}
	ctx := r.Context()
	var res any
	if which == "run" {
		res, _ = e.Decide(ctx, engine.Request{Query: query.ShouldRun, Goal: in.Goal, Agent: in.Agent})
	} else {
		res, _ = e.Permission(ctx, in.Goal, in.Agent, toolcall.Call{Tool: in.Tool, Action: in.Action, Paths: in.Paths, Command: in.Command})
	}
	writeJSON(w, http.StatusOK, map[string]any{"result": res, "decision_id": decisionID(ctx)})
}

func decisionID(context.Context) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
