// Package dashboard is the page `loopx serve` shows a human at "/": what
// needs them (gates to answer, rules to adopt, what happened while they
// were away, governance health), the goals' lanes, the board of todos,
// quota, the timeline and the agents, with live updates from /v1/stream.
//
// A person gets in with a single-use code (MintCode, printed in a URL by
// `loopx dashboard`), exchanged at /login for a session cookie named after
// the project (HttpOnly, SameSite=Strict). The page reads the HTTP API's
// documents with that cookie; every write is a POST to /ui/do carrying
// the session's CSRF token, and runs the same loopx command a person types
// at a terminal, on the "dashboard" channel (Config.Run): the rules that
// decide it are the command's, not this package's. Assets are embedded; the
// Content-Security-Policy allows no inline script and nothing from
// elsewhere.
package dashboard

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed assets
var assets embed.FS

// RunFunc runs one loopx command line for a dashboard session: argv
// without the program name (and --json), typed the word the person typed
// into the page's confirmation ("" when none), and returns the exit code.
type RunFunc func(ctx context.Context, argv []string, typed string, stdout, stderr io.Writer) int

// Config is what the server hands the dashboard.
type Config struct {
	// Sessions are the server's sessions (NewSessions).
	Sessions *Sessions
	// Run runs a write (or a preview) as the dashboard's human.
	Run RunFunc
	// Project is the project's name, shown in the title.
	Project string
}

// CSP is the page's Content-Security-Policy: its own script, style and
// connections only; no inline script, no frames, no forms elsewhere.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Handler is the dashboard's http.Handler: GET /, /login, /assets/*, and
// POST /ui/do, /ui/preview. The HTTP API checks Host and size first.
type Handler struct {
	cfg  Config
	page *template.Template
	mux  *http.ServeMux
}

// New builds the handler. Errors: a Config without Sessions or Run.
func New(cfg Config) (*Handler, error) {
	if cfg.Sessions == nil || cfg.Run == nil {
		return nil, fmt.Errorf("dashboard: Config needs Sessions and Run")
	}
	page, err := template.ParseFS(assets, "assets/index.html", "assets/locked.html")
	if err != nil {
		return nil, err
	}
	h := &Handler{cfg: cfg, page: page, mux: http.NewServeMux()}
	static, _ := fs.Sub(assets, "assets")
	h.mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(static)))
	h.mux.HandleFunc("GET /login", h.login)
	h.mux.HandleFunc("GET /{$}", h.index)
	h.mux.HandleFunc("POST /ui/do", h.do)
	h.mux.HandleFunc("POST /ui/preview", h.preview)
	return h, nil
}

// Owns reports whether path is the dashboard's (the HTTP API routes
// everything else).
func Owns(path string) bool {
	return path == "/" || path == "/login" || strings.HasPrefix(path, "/assets/") || strings.HasPrefix(path, "/ui/")
}

// ServeHTTP sets the page's security headers and routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cache-Control", "no-store")
	h.mux.ServeHTTP(w, r)
}

// login exchanges ?code= for a session cookie and sends the browser to /
// (so the code leaves the address bar); a bad code is a 403 page.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	id, _, err := h.cfg.Sessions.Redeem(r.URL.Query().Get("code"))
	if err != nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		_ = h.page.ExecuteTemplate(w, "locked.html", map[string]string{"Project": h.cfg.Project, "Message": err.Error()})
		return
	}
	http.SetCookie(w, h.cfg.Sessions.Cookie(id))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// index is the page for a session, or, without one, a page that shows
// nothing but how to get in (401).
func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	csrf, ok := h.cfg.Sessions.Lookup(r)
	if !ok {
		w.WriteHeader(http.StatusUnauthorized)
		_ = h.page.ExecuteTemplate(w, "locked.html", map[string]string{"Project": h.cfg.Project, "Message": "Open the dashboard with loopx dashboard, in a terminal in the project."})
		return
	}
	_ = h.page.ExecuteTemplate(w, "index.html", map[string]string{"Project": h.cfg.Project, "CSRF": csrf})
}

// request is a write the page asks for.
type request struct {
	Action   string `json:"action"`
	Goal     string `json:"goal"`
	Todo     string `json:"todo"`
	Gate     string `json:"gate"`
	Option   string `json:"option"`
	Note     string `json:"note"`
	Title    string `json:"title"`
	Priority string `json:"priority"`
	Typed    string `json:"typed"`
}

// argv is the loopx command line of a write, or an error naming what is
// wrong with the request.
func (q request) argv() ([]string, error) {
	for _, id := range []string{q.Goal, q.Todo, q.Gate} {
		if strings.HasPrefix(id, "-") {
			return nil, fmt.Errorf("%q is not an id", id)
		}
	}
	need := func(v, name string) error {
		if v == "" {
			return fmt.Errorf("%s needs %s", q.Action, name)
		}
		return nil
	}
	switch q.Action {
	case "gate.answer":
		if err := need(q.Gate, "a gate"); err != nil {
			return nil, err
		}
		if err := need(q.Option, "an option"); err != nil {
			return nil, err
		}
		argv := []string{"gate", "answer", q.Gate, "--option=" + q.Option}
		if q.Note != "" {
			argv = append(argv, "--note="+q.Note)
		}
		return argv, nil
	case "adopt":
		return []string{"adopt"}, nil
	case "adopt.restore":
		return []string{"adopt", "--restore"}, nil
	case "goal.pause", "goal.resume":
		if err := need(q.Goal, "a goal"); err != nil {
			return nil, err
		}
		return []string{"goal", strings.TrimPrefix(q.Action, "goal."), q.Goal}, nil
	case "todo.done", "todo.block", "todo.cancel", "todo.reopen":
		if err := need(q.Todo, "a todo"); err != nil {
			return nil, err
		}
		return []string{"todo", strings.TrimPrefix(q.Action, "todo."), q.Todo}, nil
	case "todo.add":
		if err := need(q.Goal, "a goal"); err != nil {
			return nil, err
		}
		if err := need(q.Title, "a title"); err != nil {
			return nil, err
		}
		argv := []string{"todo", "add", "--goal=" + q.Goal}
		if q.Priority != "" {
			argv = append(argv, "--priority="+q.Priority)
		}
		return append(argv, "--", q.Title), nil
	case "review.mark":
		if err := need(q.Goal, "a goal"); err != nil {
			return nil, err
		}
		return []string{"review", "--goal=" + q.Goal, "--mark"}, nil
	}
	return nil, fmt.Errorf("unknown action %q", q.Action)
}

// receipt is the answer to a write or a preview: the command's exit code,
// its --json document and its messages.
type receipt struct {
	ExitCode int             `json:"exit_code"`
	Result   json.RawMessage `json:"result,omitempty"`
	Message  string          `json:"message,omitempty"`
}

// do runs a write for the session (CSRF checked) and answers its receipt.
func (h *Handler) do(w http.ResponseWriter, r *http.Request) {
	q, ok := h.read(w, r)
	if !ok {
		return
	}
	argv, err := q.argv()
	if err != nil {
		writeJSON(w, http.StatusBadRequest, receipt{ExitCode: 2, Message: err.Error()})
		return
	}
	h.run(w, r, argv, q.Typed)
}

// preview decides a gate answer on the dashboard's channel without
// recording it (loopx decide gate-answer): the page shows it before the
// person confirms.
func (h *Handler) preview(w http.ResponseWriter, r *http.Request) {
	q, ok := h.read(w, r)
	if !ok {
		return
	}
	if q.Action != "gate.answer" || q.Gate == "" || q.Option == "" || strings.HasPrefix(q.Gate, "-") {
		writeJSON(w, http.StatusBadRequest, receipt{ExitCode: 2, Message: "a preview is of a gate answer: gate and option"})
		return
	}
	argv := []string{"decide", "gate-answer", q.Gate, "--option=" + q.Option}
	if q.Note != "" {
		argv = append(argv, "--note="+q.Note)
	}
	h.run(w, r, argv, "")
}

// read checks the session and its CSRF token and decodes the request.
func (h *Handler) read(w http.ResponseWriter, r *http.Request) (request, bool) {
	var q request
	if !h.cfg.Sessions.CheckCSRF(r) {
		writeJSON(w, http.StatusForbidden, receipt{ExitCode: 2, Message: "no dashboard session or a wrong CSRF token: reload the page, or run loopx dashboard"})
		return q, false
	}
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
		writeJSON(w, http.StatusBadRequest, receipt{ExitCode: 2, Message: "malformed request: " + err.Error()})
		return q, false
	}
	return q, true
}

func (h *Handler) run(w http.ResponseWriter, r *http.Request, argv []string, typed string) {
	var out, errb bytes.Buffer
	code := h.cfg.Run(r.Context(), append(argv, "--json"), typed, &out, &errb)
	rc := receipt{ExitCode: code, Message: strings.TrimSpace(errb.String())}
	if b := bytes.TrimSpace(out.Bytes()); json.Valid(b) && len(b) > 0 {
		rc.Result = b
	}
	writeJSON(w, http.StatusOK, rc)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
