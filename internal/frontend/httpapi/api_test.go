package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRun is a RunFunc that records the command lines it was given and
// answers like loopx would: a decision document (exit 0, or 1 for a
// deny), the errors envelope of an unknown id (exit 2), or an internal
// error (exit 3).
type fakeRun struct{ argv [][]string }

func (f *fakeRun) run(_ context.Context, argv []string, stdout, stderr io.Writer) int {
	f.argv = append(f.argv, argv)
	line := strings.Join(argv, " ")
	switch {
	case strings.Contains(line, "t-nope"):
		fmt.Fprint(stdout, `{"errors":[{"code":"unknown_todo","message":"unknown todo \"t-nope\"","location":null}]}`)
		return 2
	case strings.Contains(line, "broken"):
		fmt.Fprint(stderr, "loopx: the state store is unusable\n")
		return 3
	case argv[0] == "decide":
		verdict := "allow"
		if strings.Contains(line, "--agent=bad") {
			verdict = "deny"
		}
		fmt.Fprintf(stdout, "{\n  \"decision_id\": \"01D\",\n  \"verdict\": %q\n}\n", verdict)
		if verdict == "deny" {
			return 1
		}
		return 0
	}
	fmt.Fprint(stdout, "[\n  {\"id\": \"t-1\"}\n]\n")
	return 0
}

func newTestAPI(t *testing.T) (*API, *fakeRun) {
	t.Helper()
	f := &fakeRun{}
	a, err := New(Config{Token: "tok", Run: f.run, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return a, f
}

func do(a *API, method, path, host, auth, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Host = host
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	a.ServeHTTP(w, r)
	return w
}

func TestSecurity(t *testing.T) {
	a, _ := newTestAPI(t)
	big := strings.Repeat("x", MaxBody+1)
	for _, c := range []struct {
		name, method, path, host, auth, body string
		want                                 int
	}{
		{"health needs no token", "GET", "/health", "127.0.0.1:1", "", "", 200},
		{"missing token", "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "", `{"input":{}}`, 401},
		{"wrong token", "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "Bearer nope", `{"input":{}}`, 401},
		{"a document needs the token too", "GET", "/v1/todos", "127.0.0.1:1", "", "", 401},
		{"the stream needs the token too", "GET", "/v1/stream", "127.0.0.1:1", "Bearer tok2", "", 401},
		{"rebinding host", "GET", "/health", "evil.example:1", "", "", 403},
		{"rebinding host with the token", "GET", "/v1/todos", "evil.example", "Bearer tok", "", 403},
		{"localhost ok", "GET", "/health", "localhost:9", "", "", 200},
		{"ipv6 loopback ok", "GET", "/health", "[::1]:9", "", "", 200},
		{"too large", "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "Bearer tok", big, 413},
		{"unknown route", "GET", "/nope", "127.0.0.1:1", "", "", 404},
		{"unknown document", "GET", "/v1/nope", "127.0.0.1:1", "Bearer tok", "", 404},
		{"a document has no writes", "POST", "/v1/todos", "127.0.0.1:1", "Bearer tok", "", 405},
		{"malformed body", "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "Bearer tok", `{`, 400},
		{"state refused", "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "Bearer tok", `{"input":{"state":{}}}`, 400},
		{"health refused", "POST", "/v1/data/loopx/claim/decision", "127.0.0.1:1", "Bearer tok", `{"input":{"health":{}}}`, 400},
		{"now refused", "POST", "/v1/data/loopx/permission/decision", "127.0.0.1:1", "Bearer tok", `{"input":{"now":1}}`, 400},
		{"a field the decision does not take", "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "Bearer tok", `{"input":{"goal":"g","agent":"a","todo":"t"}}`, 400},
		{"a required field missing", "POST", "/v1/data/loopx/gate/decision", "127.0.0.1:1", "Bearer tok", `{"input":{"gate":"g-1"}}`, 400},
		{"a wrong type", "POST", "/v1/data/loopx/permission/decision", "127.0.0.1:1", "Bearer tok", `{"input":{"goal":"g","agent":"a","paths":"x"}}`, 400},
		{"an id that would be a flag", "POST", "/v1/data/loopx/claim/decision", "127.0.0.1:1", "Bearer tok", `{"input":{"agent":"a","todo":"--project=/"}}`, 400},
		{"a document id that would be a flag", "GET", "/v1/todos/--project=x", "127.0.0.1:1", "Bearer tok", "", 404},
		{"a parameter a document does not take", "GET", "/v1/todos?project=/", "127.0.0.1:1", "Bearer tok", "", 400},
		{"a required parameter missing", "GET", "/v1/evidence", "127.0.0.1:1", "Bearer tok", "", 400},
		{"undefined document", "POST", "/v1/data/loopx/nothing", "127.0.0.1:1", "Bearer tok", `{"input":{}}`, 200},
		{"an unknown id", "POST", "/v1/data/loopx/claim/decision", "127.0.0.1:1", "Bearer tok", `{"input":{"agent":"a","todo":"t-nope"}}`, 404},
		{"an internal error", "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "Bearer tok", `{"input":{"goal":"broken","agent":"a"}}`, 500},
		{"PUT is not a query", "PUT", "/v1/data/loopx/run/decision", "127.0.0.1:1", "Bearer tok", `{"input":{}}`, 405},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := do(a, c.method, c.path, c.host, c.auth, c.body)
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

// TestDecisionCommandLines checks what each decision and document runs:
// the request fields become the `loopx decide` flags (in --flag=value
// form, so a value is never read as another flag), and --json.
func TestDecisionCommandLines(t *testing.T) {
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "/v1/data/loopx/run/decision", `{"input":{"goal":"g1","agent":"a1"}}`, "decide should-run --goal=g1 --agent=a1 --json"},
		{"GET", `/v1/data/loopx/run/decision?input={"goal":"g1","agent":"a1"}`, "", "decide should-run --goal=g1 --agent=a1 --json"},
		{"POST", "/v1/data/loopx/permission/decision", `{"input":{"goal":"g1","agent":"a1","tool":"Bash","command":"git push","paths":["a","b"],"action":"git.push"}}`,
			"decide permission --goal=g1 --agent=a1 --tool=Bash --command=git push --action=git.push --path=a --path=b --json"},
		{"POST", "/v1/data/loopx/claim/decision", `{"input":{"agent":"a2","todo":"t-1","op":"transfer","from":"a1"}}`, "decide claim t-1 --agent=a2 --op=transfer --from=a1 --json"},
		{"POST", "/v1/data/loopx/gate/decision", `{"input":{"gate":"g-1","option":"approve","note":"--as=x","as":"agent:a1"}}`, "decide gate-answer g-1 --option=approve --note=--as=x --as=agent:a1 --json"},
		{"GET", "/v1/todos?goal=--x&status=open", "", "todo list --goal=--x --status=open --json"},
		{"GET", "/v1/gates/g-1", "", "gate show g-1 --json"},
		{"GET", "/v1/decisions?limit=5", "", "log --limit=5 --json"},
		{"GET", "/v1/rounds/r-1", "", "round show r-1 --json"},
	} {
		a, f := newTestAPI(t)
		w := do(a, c.method, strings.ReplaceAll(strings.ReplaceAll(c.path, `"`, "%22"), " ", "%20"), "127.0.0.1", "Bearer tok", c.body)
		if w.Code != 200 || len(f.argv) != 1 {
			t.Fatalf("%s %s: %d %s (%d runs)", c.method, c.path, w.Code, w.Body, len(f.argv))
		}
		if got := strings.Join(f.argv[0], " "); got != c.want {
			t.Errorf("%s %s ran\n  %s\nwant\n  %s", c.method, c.path, got, c.want)
		}
	}
}

// TestDecisionEnvelope checks OPA's envelope: result (the decision
// document the command printed) and decision_id (the decision's); a deny
// (exit 1) is a 200 like an allow.
func TestDecisionEnvelope(t *testing.T) {
	a, _ := newTestAPI(t)
	for _, agent := range []string{"a1", "bad"} {
		w := do(a, "POST", "/v1/data/loopx/run/decision", "127.0.0.1:1", "Bearer tok", `{"input":{"goal":"g","agent":"`+agent+`"}}`)
		var got struct {
			Result     map[string]any `json:"result"`
			DecisionID string         `json:"decision_id"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != 200 {
			t.Fatalf("%d %s: %v", w.Code, w.Body, err)
		}
		if got.DecisionID != "01D" || got.Result["decision_id"] != "01D" || got.Result["verdict"] == nil {
			t.Fatalf("envelope: %s", w.Body)
		}
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
	// A link in its place is never followed: a new token replaces it.
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte(strings.Repeat("a", 64)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, TokenFile)
	_ = os.Remove(p)
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	tok3, err := EnsureToken(dir)
	if err != nil || tok3 == strings.Repeat("a", 64) {
		t.Fatalf("a linked token file was read: %q %v", tok3, err)
	}
	if b, _ := os.ReadFile(target); string(b) != strings.Repeat("a", 64) {
		t.Fatalf("the link's target was written")
	}
}

// TestSessionReadsOnly: a dashboard session (its cookie) reads the /v1
// documents without the token, and nothing else: a decision (POST) still
// needs the token; the page's own paths go to Page.
func TestSessionReadsOnly(t *testing.T) {
	f := &fakeRun{}
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(299) })
	a, err := New(Config{Token: "tok", Run: f.run, StateDir: t.TempDir(),
		Session: func(r *http.Request) bool { return r.Header.Get("Cookie") == "s=1" },
		Page:    page, Owns: func(p string) bool { return p == "/" || p == "/ui/do" }})
	if err != nil {
		t.Fatal(err)
	}
	req := func(method, path, cookie, host string) int {
		r := httptest.NewRequest(method, path, strings.NewReader(`{"input":{"goal":"g","agent":"a"}}`))
		r.Host = host
		if cookie != "" {
			r.Header.Set("Cookie", cookie)
		}
		w := httptest.NewRecorder()
		a.ServeHTTP(w, r)
		return w.Code
	}
	for _, c := range []struct {
		method, path, cookie, host string
		want                       int
	}{
		{"GET", "/v1/todos", "s=1", "127.0.0.1", 200},
		{"GET", "/v1/todos", "s=2", "127.0.0.1", 401},
		{"POST", "/v1/data/loopx/run/decision", "s=1", "127.0.0.1", 401},
		{"GET", "/", "", "127.0.0.1", 299},
		{"POST", "/ui/do", "s=1", "evil.example", 403},
	} {
		if got := req(c.method, c.path, c.cookie, c.host); got != c.want {
			t.Errorf("%s %s cookie %q host %s: %d, want %d", c.method, c.path, c.cookie, c.host, got, c.want)
		}
	}
}
