package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine"
)

// newTestAPI builds an API over a project directory that does not exist:
// decisions then fail closed (a deny), which is enough for the envelope.
func newTestAPI(t *testing.T) *API {
	t.Helper()
	root := filepath.Join(t.TempDir(), "missing")
	a, err := New(Config{Token: "tok", Open: func() (*engine.Engine, error) {
		return engine.New(engine.Options{Root: root, Now: func() time.Time { return time.Unix(0, 0) }, StateHome: t.TempDir()}), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestSecurity(t *testing.T) {
	a := newTestAPI(t)
	big := strings.Repeat("x", MaxBody+1)
	for _, c := range []struct {
		name, method, path, host, auth, body string
		want                                 int
	}{
		{"health needs no token", "GET", "/health", "127.0.0.1:1", "", "", 200},
		{"missing token", "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "", `{"input":{}}`, 401},
		{"wrong token", "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "Bearer nope", `{"input":{}}`, 401},
		{"rebinding host", "GET", "/health", "evil.example:1", "", "", 403},
		{"localhost ok", "GET", "/health", "localhost:9", "", "", 200},
		{"ipv6 loopback ok", "GET", "/health", "[::1]:9", "", "", 200},
		{"too large", "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "Bearer tok", big, 413},
		{"unknown route", "GET", "/nope", "127.0.0.1:1", "", "", 404},
		{"malformed body", "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "Bearer tok", `{`, 400},
		{"state refused", "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "Bearer tok", `{"input":{"state":{}}}`, 400},
		{"now refused", "POST", "/v1/data/loopx/permission/decision", "127.0.0.1:1", "Bearer tok", `{"input":{"now":1}}`, 400},
		{"undefined document", "POST", "/v1/data/loopx/nothing", "127.0.0.1:1", "Bearer tok", `{"input":{}}`, 200},
		{"a decision not served yet is never an empty answer", "POST", "/v1/data/loopx/claim/decision", "127.0.0.1:1", "Bearer tok", `{"input":{}}`, 501},
		{"the gate decision likewise", "POST", "/v1/data/loopx/gate/decision", "127.0.0.1:1", "Bearer tok", `{"input":{}}`, 501},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
			r.Host = c.host
			if c.auth != "" {
				r.Header.Set("Authorization", c.auth)
			}
			w := httptest.NewRecorder()
			a.ServeHTTP(w, r)
			if w.Code != c.want {
				t.Fatalf("status %d, want %d: %s", w.Code, c.want, w.Body)
			}
			if w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("Content-Security-Policy") == "" {
				t.Fatalf("missing security headers: %v", w.Header())
			}
			if !json.Valid(w.Body.Bytes()) {
				t.Fatalf("body is not JSON: %q", w.Body)
			}
			if w.Code == 401 && strings.TrimSpace(w.Body.String()) != `{"code":"unauthorized","message":"unauthorized"}` {
				t.Fatalf("401 body says more: %s", w.Body)
			}
		})
	}
}

// TestDecisionEnvelope checks OPA's envelope: result (the decision
// document) and decision_id; an unusable project is a deny (fail closed).
func TestDecisionEnvelope(t *testing.T) {
	a := newTestAPI(t)
	r := httptest.NewRequest("POST", "/v1/data/loopx/run/decision", strings.NewReader(`{"input":{"goal":"g","agent":"a"}}`))
	r.Host = "127.0.0.1:1"
	r.Header.Set("Authorization", "Bearer tok")
	w := httptest.NewRecorder()
	a.ServeHTTP(w, r)
	var got struct {
		Result     map[string]any `json:"result"`
		DecisionID string         `json:"decision_id"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != 200 {
		t.Fatalf("%d %s: %v", w.Code, w.Body, err)
	}
	if got.DecisionID == "" || got.Result["verdict"] == nil {
		t.Fatalf("envelope: %s", w.Body)
	}
}

func TestEnsureToken(t *testing.T) {
	dir := t.TempDir()
	tok, err := EnsureToken(dir)
	if err != nil || len(tok) != 64 {
		t.Fatalf("%q %v", tok, err)
	}
	fi, err := os.Stat(filepath.Join(dir, TokenFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
	again, err := EnsureToken(dir)
	if err != nil || again != tok {
		t.Fatalf("second call %q %v, want the same token", again, err)
	}
}
