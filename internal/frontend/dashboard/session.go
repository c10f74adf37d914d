package dashboard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// CodeTTL is how long a code minted by `loopx dashboard` can be exchanged
// for a session.
const CodeTTL = 5 * time.Minute

// SessionTTL is how long a session lasts after its last request.
const SessionTTL = 12 * time.Hour

// MintCode returns a single-use code for the server holding token, valid
// until now+CodeTTL: 16 random bytes and the expiry (Unix seconds), signed
// with HMAC-SHA256 under the token, base64url. Whoever can read the token
// file (the user) can mint one; the server accepts each code once.
func MintCode(token string, now time.Time) (string, error) {
	payload := make([]byte, 24)
	if _, err := rand.Read(payload[:16]); err != nil {
		return "", err
	}
	binary.BigEndian.PutUint64(payload[16:], uint64(now.Add(CodeTTL).Unix()))
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write(payload)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(mac.Sum(nil)), nil
}

// ErrCode is Redeem's error for a code that is malformed, forged,
// expired or already used: all look the same to the caller.
var ErrCode = errors.New("this dashboard link is not valid (each link works once, for 5 minutes): run loopx dashboard for a new one")

// session is one browser's login.
type session struct {
	csrf string
	seen time.Time
}

// Sessions are the server's dashboard sessions, in memory (a restarted
// server needs a new code), and the codes already used.
type Sessions struct {
	token  string
	cookie string
	now    func() time.Time

	mu       sync.Mutex
	sessions map[string]*session
	used     map[string]time.Time // code nonce → its expiry
}

// NewSessions returns the sessions of the server holding token, whose
// cookie is named after project (see CookieName); now is the clock (nil:
// time.Now).
func NewSessions(token, project, root string, now func() time.Time) *Sessions {
	if now == nil {
		now = time.Now
	}
	return &Sessions{token: token, cookie: CookieName(project, root), now: now,
		sessions: map[string]*session{}, used: map[string]time.Time{}}
}

var cookieUnsafe = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// CookieName is the session cookie's name for a project: "loopx_" and its
// name, and a short hash of its root, since cookies ignore ports (two
// projects served on localhost would share one otherwise).
func CookieName(project, root string) string {
	sum := sha256.Sum256([]byte(root))
	name := cookieUnsafe.ReplaceAllString(project, "_")
	if len(name) > 40 {
		name = name[:40]
	}
	return "loopx_" + name + "_" + base64.RawURLEncoding.EncodeToString(sum[:6])
}

// Redeem exchanges a code for a new session: its id (the cookie's value)
// and CSRF token. Errors: ErrCode.
func (s *Sessions) Redeem(code string) (id, csrf string, err error) {
	enc := base64.RawURLEncoding
	p, m, ok := strings.Cut(code, ".")
	payload, err1 := enc.DecodeString(p)
	sig, err2 := enc.DecodeString(m)
	if !ok || err1 != nil || err2 != nil || len(payload) != 24 {
		return "", "", ErrCode
	}
	mac := hmac.New(sha256.New, []byte(s.token))
	mac.Write(payload)
	if !hmac.Equal(sig, mac.Sum(nil)) {
		return "", "", ErrCode
	}
	now := s.now()
	exp := time.Unix(int64(binary.BigEndian.Uint64(payload[16:])), 0)
	if !now.Before(exp) || exp.Sub(now) > CodeTTL+time.Minute {
		return "", "", ErrCode
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gc(now)
	nonce := string(payload[:16])
	if _, seen := s.used[nonce]; seen {
		return "", "", ErrCode
	}
	s.used[nonce] = exp
	id, csrf = random(), random()
	s.sessions[id] = &session{csrf: csrf, seen: now}
	return id, csrf, nil
}

// gc drops expired sessions and used codes; s.mu is held.
func (s *Sessions) gc(now time.Time) {
	for k, v := range s.used {
		if now.After(v) {
			delete(s.used, k)
		}
	}
	for k, v := range s.sessions {
		if now.Sub(v.seen) > SessionTTL {
			delete(s.sessions, k)
		}
	}
}

// Cookie is the session cookie for id: HttpOnly, SameSite=Strict, Path /,
// and without an expiry, so that the browser keeps it in memory and not in
// its profile on disk (the server ends it after SessionTTL unused).
func (s *Sessions) Cookie(id string) *http.Cookie {
	return &http.Cookie{Name: s.cookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode}
}

// Lookup returns the CSRF token of the request's session and true, or
// false when the request carries no live session cookie.
func (s *Sessions) Lookup(r *http.Request) (csrf string, ok bool) {
	c, err := r.Cookie(s.cookie)
	if err != nil || c.Value == "" {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	ses, ok := s.sessions[c.Value]
	if !ok || now.Sub(ses.seen) > SessionTTL {
		return "", false
	}
	ses.seen = now
	return ses.csrf, true
}

// Valid reports whether r carries a live session cookie (the HTTP API
// accepts one in place of the bearer token, for the page's reads).
func (s *Sessions) Valid(r *http.Request) bool {
	_, ok := s.Lookup(r)
	return ok
}

// CheckCSRF reports whether r (a write) carries its session's CSRF token
// in the X-CSRF-Token header and, when the browser sends one, an Origin
// of this host.
func (s *Sessions) CheckCSRF(r *http.Request) bool {
	csrf, ok := s.Lookup(r)
	if !ok {
		return false
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host && o != "https://"+r.Host {
		return false
	}
	got := r.Header.Get("X-CSRF-Token")
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(csrf)) == 1
}

func random() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
