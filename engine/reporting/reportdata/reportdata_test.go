package reportdata

import (
	"testing"
	"time"
)

// TestStale_FutureEvidence: evidence dated after now is stale, not fresh
// for as long as the clock is behind.
func TestStale_FutureEvidence(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		created time.Time
		want    bool
	}{
		{now.Add(-time.Hour), false},
		{now.Add(-73 * time.Hour), true},
		{now.Add(time.Hour), true},
	} {
		if got := Stale(c.created, now, DefaultStaleAfter); got != c.want {
			t.Errorf("Stale(%v) = %v, want %v", c.created, got, c.want)
		}
	}
}
