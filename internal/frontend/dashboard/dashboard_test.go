package dashboard

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

type fakeRun struct {
	argv  [][]string
	typed []string
}

func (f *fakeRun) run(_ context.Context, argv []string, typed string, stdout, _ io.Writer) int {
	f.argv = append(f.argv, argv)
	f.typed = append(f.typed, typed)
	fmt.Fprint(stdout, `{"id":"x"}`)
	return 0
}

// site is the dashboard behind a minimal stand-in for the HTTP API's
// checks (the real API's are tested in httpapi).
func site(t *testing.T, now *time.Time) (*Handler, *Sessions, *fakeRun) {
	t.Helper()
	s := NewSessions("tok", "acme api", "/p/acme", func() time.Time { return *now })
	f := &fakeRun{}
	h, err := New(Config{Sessions: s, Run: f.run, Project: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	return h, s, f
}

func send(h http.Handler, method, path, body string, hdr map[string]string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Host = "127.0.0.1:9"
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestCodesAreSingleUseSignedAndShortLived(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	_, s, _ := site(t, &now)
	code, err := MintCode("tok", now)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Redeem(code); err != nil {
		t.Fatalf("a fresh code: %v", err)
	}
	if _, _, err := s.Redeem(code); err != ErrCode {
		t.Fatalf("a code used twice: %v, want ErrCode", err)
	}
	other, _ := MintCode("another server's token", now)
	if _, _, err := s.Redeem(other); err != ErrCode {
		t.Fatalf("a code signed with another token: %v", err)
	}
	late, _ := MintCode("tok", now)
	now = now.Add(CodeTTL + time.Second)
	if _, _, err := s.Redeem(late); err != ErrCode {
		t.Fatalf("an expired code: %v", err)
	}
	for _, bad := range []string{"", "x", "a.b", strings.Repeat("A", 32) + "." + strings.Repeat("B", 43)} {
		if _, _, err := s.Redeem(bad); err != ErrCode {
			t.Fatalf("code %q: %v", bad, err)
		}
	}
}

func TestCookieAndPage(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	h, s, _ := site(t, &now)

	w := send(h, "GET", "/", "", nil)
	if w.Code != 401 || strings.Contains(w.Body.String(), "csrf-token") || !strings.Contains(w.Body.String(), "loopx dashboard") {
		t.Fatalf("without a session: %d\n%s", w.Code, w.Body)
	}
	if got := w.Header().Get("Content-Security-Policy"); got != CSP || !strings.Contains(got, "script-src 'self'") || strings.Contains(got, "unsafe") {
		t.Fatalf("CSP %q", got)
	}
	if w := send(h, "GET", "/login?code=nope", "", nil); w.Code != 403 || len(w.Result().Cookies()) != 0 {
		t.Fatalf("a bad code: %d, cookies %v", w.Code, w.Result().Cookies())
	}
	code, _ := MintCode("tok", now)
	w = send(h, "GET", "/login?code="+code, "", nil)
	cs := w.Result().Cookies()
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/" || len(cs) != 1 {
		t.Fatalf("login: %d %v %v", w.Code, w.Header(), cs)
	}
	c := cs[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.MaxAge != 0 || !c.Expires.IsZero() || c.Name != CookieName("acme api", "/p/acme") || !strings.HasPrefix(c.Name, "loopx_acme_api_") {
		t.Fatalf("cookie %+v", c)
	}
	if CookieName("acme api", "/p/acme") == CookieName("acme api", "/q/acme") {
		t.Fatal("two projects of one name share a cookie name")
	}
	w = send(h, "GET", "/", "", nil, c)
	if w.Code != 200 || !strings.Contains(w.Body.String(), `name="csrf-token"`) || strings.Contains(w.Body.String(), "<script>") {
		t.Fatalf("with the session: %d\n%s", w.Code, w.Body)
	}
	if s.Valid(httptest.NewRequest("GET", "/v1/todos", nil)) {
		t.Fatal("a request without the cookie is a session")
	}
	now = now.Add(SessionTTL + time.Minute)
	if w := send(h, "GET", "/", "", nil, c); w.Code != 401 {
		t.Fatalf("an expired session: %d", w.Code)
	}
}

func TestWritesNeedTheCSRFToken(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	h, s, f := site(t, &now)
	code, _ := MintCode("tok", now)
	c := send(h, "GET", "/login?code="+code, "", nil).Result().Cookies()[0]
	r := httptest.NewRequest("GET", "/", nil)
	r.AddCookie(c)
	csrf, ok := s.Lookup(r)
	if !ok {
		t.Fatal("no session")
	}
	body := `{"action":"gate.answer","gate":"g-1","option":"approve","note":"ok"}`
	for _, bad := range []struct {
		name string
		hdr  map[string]string
		c    []*http.Cookie
	}{
		{"no token", map[string]string{}, []*http.Cookie{c}},
		{"a wrong token", map[string]string{"X-CSRF-Token": "nope"}, []*http.Cookie{c}},
		{"another origin", map[string]string{"X-CSRF-Token": csrf, "Origin": "http://evil.example"}, []*http.Cookie{c}},
		{"no session", map[string]string{"X-CSRF-Token": csrf}, nil},
	} {
		if w := send(h, "POST", "/ui/do", body, bad.hdr, bad.c...); w.Code != 403 {
			t.Errorf("%s: %d %s", bad.name, w.Code, w.Body)
		}
	}
	if len(f.argv) != 0 {
		t.Fatalf("a refused write ran: %v", f.argv)
	}
	ok2 := map[string]string{"X-CSRF-Token": csrf, "Origin": "http://127.0.0.1:9"}
	for _, c2 := range []struct{ body, want, typed string }{
		{body, "gate answer g-1 --option=approve --note=ok --json", ""},
		{`{"action":"adopt","typed":"adopt"}`, "adopt --json", "adopt"},
		{`{"action":"goal.pause","goal":"g1"}`, "goal pause g1 --json", ""},
		{`{"action":"todo.add","goal":"g1","title":"--project=/ x","priority":"P1"}`, "todo add --goal=g1 --priority=P1 -- --project=/ x --json", ""},
		{`{"action":"todo.done","todo":"t-1"}`, "todo done t-1 --json", ""},
		{`{"action":"review.mark","goal":"g1"}`, "review --goal=g1 --mark --json", ""},
	} {
		w := send(h, "POST", "/ui/do", c2.body, ok2, c)
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", c2.body, w.Code, w.Body)
		}
		if got := strings.Join(f.argv[len(f.argv)-1], " "); got != c2.want || f.typed[len(f.typed)-1] != c2.typed {
			t.Errorf("%s ran %q typed %q, want %q", c2.body, got, f.typed[len(f.typed)-1], c2.want)
		}
	}
	for _, bad := range []string{`{"action":"rm"}`, `{"action":"todo.done","todo":"--project=/"}`, `{"action":"gate.answer","gate":"g-1"}`, `{`} {
		if w := send(h, "POST", "/ui/do", bad, ok2, c); w.Code != 400 {
			t.Errorf("%s: %d, want 400", bad, w.Code)
		}
	}
}
