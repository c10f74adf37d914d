package lease

import (
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// TestCheckTTL: 0 is the default; a TTL outside the bounds is a usage
// error; a valid one is truncated to whole seconds.
func TestCheckTTL(t *testing.T) {
	for _, c := range []struct {
		ttl, want time.Duration
		bad       bool
	}{
		{0, 45 * time.Minute, false},
		{1500 * time.Millisecond, time.Second, false},
		{time.Millisecond, 0, true},
		{25 * time.Hour, 0, true},
	} {
		got, err := CheckTTL(c.ttl, 45*time.Minute)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("CheckTTL(%s) = %s, %v; want %s, bad %v", c.ttl, got, err, c.want, c.bad)
		}
		if err != nil && errs.CodeOf(err) != "bad_ttl" {
			t.Errorf("CheckTTL(%s): code %q, want bad_ttl", c.ttl, errs.CodeOf(err))
		}
	}
}

// TestCheckHeld: the version must match and the agent hold a live lease
// (an expired one only when allowExpired).
func TestCheckHeld(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	live := &records.Lease{Holder: "a1", Version: 3, Epoch: 1, ExpiresAt: now.Add(time.Minute)}
	expired := &records.Lease{Holder: "a1", Version: 3, Epoch: 1, ExpiresAt: now.Add(-time.Minute)}
	released := &records.Lease{Holder: "a1", Version: 3, Epoch: 1, ExpiresAt: now.Add(time.Minute), Released: true}
	for _, c := range []struct {
		name         string
		lease        *records.Lease
		agent        string
		expected     uint64
		allowExpired bool
		code         string
	}{
		{"held", live, "a1", 3, false, ""},
		{"stale version", live, "a1", 2, false, "version_mismatch"},
		{"no lease", nil, "a1", 1, false, "version_mismatch"},
		{"other holder", live, "a2", 3, false, "lease_lost"},
		{"released", released, "a1", 3, true, "lease_lost"},
		{"expired", expired, "a1", 3, false, "lease_lost"},
		{"expired release", expired, "a1", 3, true, ""},
	} {
		err := CheckHeld(records.Todo{ID: "t-1", Lease: c.lease}, c.agent, c.expected, now, c.allowExpired)
		if got := errs.CodeOf(err); (err == nil) != (c.code == "") || (err != nil && got != c.code) {
			t.Errorf("%s: %v, want code %q", c.name, err, c.code)
		}
		if err != nil && errs.KindOf(err) != errs.No {
			t.Errorf("%s: kind %v, want No", c.name, errs.KindOf(err))
		}
	}
}

// TestClaim: version +1 always; epoch +1 for a new holder or after the
// lease ended; the live holder re-claiming keeps its TTL, key and start.
func TestClaim(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	start := now.Add(-10 * time.Minute)
	live := &records.Lease{Holder: "a1", Version: 3, Epoch: 2, AcquiredAt: start, ExpiresAt: now.Add(time.Minute), TTLSeconds: 600, IdempotencyKey: "k"}
	for _, c := range []struct {
		name     string
		old      *records.Lease
		agent    string
		version  uint64
		epoch    uint64
		acquired time.Time
		ttl      time.Duration
		key      string
	}{
		{"first claim", nil, "a1", 1, 1, now, time.Hour, ""},
		{"another holder", live, "a2", 4, 3, now, time.Hour, ""},
		{"the holder again", live, "a1", 4, 2, start, 10 * time.Minute, "k"},
		{"after it expired", &records.Lease{Holder: "a1", Version: 3, Epoch: 2, ExpiresAt: now.Add(-time.Second)}, "a1", 4, 3, now, time.Hour, ""},
		{"after it was released", &records.Lease{Holder: "a1", Version: 4, Epoch: 2, ExpiresAt: now.Add(time.Minute), Released: true}, "a1", 5, 3, now, time.Hour, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			td := records.Todo{ID: "todo-1", Status: records.TodoOpen, Lease: c.old}
			Claim(&td, c.agent, "round-1", now, time.Hour)
			l := td.Lease
			if td.Status != records.TodoClaimed || l.Holder != c.agent || l.Round != "round-1" || l.Version != c.version || l.Epoch != c.epoch ||
				!l.AcquiredAt.Equal(c.acquired) || !l.ExpiresAt.Equal(now.Add(c.ttl)) || l.TTLSeconds != int64(c.ttl/time.Second) || l.IdempotencyKey != c.key {
				t.Fatalf("%+v (status %s)", l, td.Status)
			}
		})
	}
}

// TestRelease: a tombstone with version +1; releasing it again changes
// nothing; no lease, nothing to release.
func TestRelease(t *testing.T) {
	td := records.Todo{Lease: &records.Lease{Holder: "a1", Version: 3}}
	Release(&td)
	if !td.Lease.Released || td.Lease.Version != 4 {
		t.Fatalf("%+v", td.Lease)
	}
	Release(&td)
	if td.Lease.Version != 4 {
		t.Fatalf("released twice: %+v", td.Lease)
	}
	none := records.Todo{}
	Release(&none)
	if none.Lease != nil {
		t.Fatalf("%+v", none.Lease)
	}
}

// TestData: the event data of a lease, the key only when set.
func TestData(t *testing.T) {
	exp := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		key  string
		want int
	}{{"", 5}, {"k1", 6}} {
		d := Data(&records.Lease{Holder: "a1", Version: 2, Epoch: 1, ExpiresAt: exp, TTLSeconds: 60, IdempotencyKey: c.key})
		if len(d) != c.want || d["expires_at"] != "2026-11-29T10:00:00Z" || d["holder"] != "a1" || (c.key != "" && d["idempotency_key"] != c.key) {
			t.Fatalf("%v", d)
		}
	}
}

// TestRenewTransferTTL: a renewal keeps holder and epoch; a transfer is a
// new holder's lease; the TTL is the requested one, the lease's own or
// the default.
func TestRenewTransferTTL(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	l := records.Lease{Holder: "a1", Version: 3, Epoch: 2, AcquiredAt: now.Add(-time.Hour), ExpiresAt: now.Add(time.Minute), TTLSeconds: 600, IdempotencyKey: "k", Round: "r1"}
	for _, c := range []struct {
		lease     records.Lease
		requested time.Duration
		want      time.Duration
	}{{l, 0, 10 * time.Minute}, {l, 90500 * time.Millisecond, 90 * time.Second}, {records.Lease{}, 0, 45 * time.Minute}} {
		if got := TTL(&c.lease, c.requested, 45*time.Minute); got != c.want {
			t.Errorf("TTL(%d s, %s) = %s, want %s", c.lease.TTLSeconds, c.requested, got, c.want)
		}
	}
	r := Renew(l, now, time.Hour)
	if r.Holder != "a1" || r.Version != 4 || r.Epoch != 2 || !r.ExpiresAt.Equal(now.Add(time.Hour)) || r.TTLSeconds != 3600 || r.IdempotencyKey != "k" || r.Round != "r1" {
		t.Errorf("renew %+v", r)
	}
	tr := Transfer(l, "a2", now, time.Hour)
	if tr != (records.Lease{Holder: "a2", Version: 4, Epoch: 3, AcquiredAt: now, ExpiresAt: now.Add(time.Hour), TTLSeconds: 3600}) {
		t.Errorf("transfer %+v", tr)
	}
}

// TestRetried: a claim with the key of a live lease of the same agent is
// a retry; another agent's key is a usage error; a spent key is refused.
func TestRetried(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	live := &records.Lease{Holder: "a1", Version: 3, ExpiresAt: now.Add(time.Minute), IdempotencyKey: "k", TTLSeconds: 1800}
	released := &records.Lease{Holder: "a1", Version: 4, ExpiresAt: now.Add(time.Minute), IdempotencyKey: "k", Released: true, TTLSeconds: 1800}
	for _, c := range []struct {
		name  string
		l     *records.Lease
		agent string
		key   string
		ttl   time.Duration
		retry bool
		code  string
	}{
		{"no key", live, "a1", "", time.Hour, false, ""},
		{"no lease", nil, "a1", "k", time.Hour, false, ""},
		{"another key", live, "a1", "k2", time.Hour, false, ""},
		{"the same claim", live, "a1", "k", 30 * time.Minute, true, ""},
		{"another agent's key", live, "a2", "k", 30 * time.Minute, false, "idempotency_key_reused"},
		{"another TTL", live, "a1", "k", 45 * time.Minute, false, "idempotency_conflict"},
		{"a spent key", released, "a1", "k", 30 * time.Minute, false, "idempotency_key_spent"},
	} {
		retry, err := Retried(c.l, "todo-1", c.agent, c.key, c.ttl, now)
		if retry != c.retry || errs.CodeOf(err) != c.code || (c.code == "") != (err == nil) {
			t.Errorf("%s: %v %v", c.name, retry, err)
		}
	}
}

// TestRequestChecks: a claim, a lease change and a claim preview checked
// alone, in the order their errors are reported.
func TestRequestChecks(t *testing.T) {
	for _, c := range []struct {
		r    ClaimRequest
		ttl  time.Duration
		code string
	}{
		{ClaimRequest{Agent: "a1"}, DefaultTTL, ""},
		{ClaimRequest{Agent: "a1", TTL: 90500 * time.Millisecond}, 90 * time.Second, ""},
		{ClaimRequest{}, 0, "missing_agent"},
		{ClaimRequest{TTL: time.Millisecond}, 0, "bad_ttl"},
	} {
		ttl, err := c.r.Check()
		if ttl != c.ttl || errs.CodeOf(err) != c.code {
			t.Errorf("%+v: %s %v", c.r, ttl, err)
		}
	}
	for _, c := range []struct {
		r    Request
		op   string
		code string
	}{
		{Request{Agent: "a1", ExpectedVersion: 2}, "renew", ""},
		{Request{Agent: "a1", ExpectedVersion: 2, To: "a2"}, "transfer", ""},
		{Request{Agent: "a1", ExpectedVersion: 2}, "transfer", "missing_to"},
		{Request{Agent: "a1", To: "a1"}, "transfer", "same_agent"},
		{Request{ExpectedVersion: 2}, "release", "missing_agent"},
		{Request{Agent: "a1"}, "release", "missing_expected_version"},
		{Request{Agent: "a1", ExpectedVersion: 2, TTL: 48 * time.Hour}, "renew", "bad_ttl"},
	} {
		if err := c.r.Check(c.op); errs.CodeOf(err) != c.code {
			t.Errorf("%s %+v: %v", c.op, c.r, err)
		}
	}
	for _, c := range []struct {
		p        Preview
		op, code string
	}{
		{Preview{Agent: "a1"}, "claim", ""},
		{Preview{Agent: "a1", Op: "transfer", From: "a2"}, "transfer", ""},
		{Preview{Agent: "a1", Op: "steal"}, "steal", "bad_op"},
		{Preview{}, "claim", "missing_agent"},
		{Preview{Agent: "a1", Op: "transfer"}, "transfer", "missing_from"},
	} {
		p, err := c.p.Check()
		if p.Op != c.op || errs.CodeOf(err) != c.code {
			t.Errorf("%+v: %+v %v", c.p, p, err)
		}
	}
}

// TestKeyElsewhere: a key on another todo's lease (live or ended) is a
// conflict; on the todo claimed, or absent, it is not.
func TestKeyElsewhere(t *testing.T) {
	todos := []records.Todo{{ID: "t1", Lease: &records.Lease{Holder: "a1", IdempotencyKey: "k", Released: true}}, {ID: "t2"}, {ID: "t3", Lease: &records.Lease{Holder: "a1", IdempotencyKey: "k9"}}}
	for _, c := range []struct{ todo, key, code string }{
		{"t1", "k", ""}, {"t2", "k", "idempotency_conflict"}, {"t2", "", ""}, {"t2", "k2", ""}, {"t1", "k9", "idempotency_conflict"},
	} {
		err := KeyElsewhere(todos, c.todo, c.key)
		if errs.CodeOf(err) != c.code || (err != nil && !errs.IsKind(err, errs.Usage)) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// TestFind: a lease operation's todo, missing_todo and unknown_todo.
func TestFind(t *testing.T) {
	get := func(id string) (records.Todo, error) {
		if id == "t1" {
			return records.Todo{ID: id}, nil
		}
		return records.Todo{}, kernel.ErrNotFound
	}
	for id, code := range map[string]string{"t1": "", "": "missing_todo", "t9": "unknown_todo"} {
		td, err := Find(get, id)
		if errs.CodeOf(err) != code || (code == "" && td.ID != id) {
			t.Errorf("Find(%q): %+v %v", id, td, err)
		}
	}
}
