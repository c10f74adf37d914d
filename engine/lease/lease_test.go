package lease

import (
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
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
	live := &kernel.Lease{Holder: "a1", Version: 3, Epoch: 1, ExpiresAt: now.Add(time.Minute)}
	expired := &kernel.Lease{Holder: "a1", Version: 3, Epoch: 1, ExpiresAt: now.Add(-time.Minute)}
	released := &kernel.Lease{Holder: "a1", Version: 3, Epoch: 1, ExpiresAt: now.Add(time.Minute), Released: true}
	for _, c := range []struct {
		name         string
		lease        *kernel.Lease
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
		err := CheckHeld(kernel.Todo{ID: "t-1", Lease: c.lease}, c.agent, c.expected, now, c.allowExpired)
		if got := errs.CodeOf(err); (err == nil) != (c.code == "") || (err != nil && got != c.code) {
			t.Errorf("%s: %v, want code %q", c.name, err, c.code)
		}
		if err != nil && errs.KindOf(err) != errs.No {
			t.Errorf("%s: kind %v, want No", c.name, errs.KindOf(err))
		}
	}
}
