package engine

import (
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// TestClockBehind_FastPathReports: a decision read from the read model
// (the store never opened) reports a clock moved back since the last
// commit, as one read from the store does; once the clock passes the
// newest commit, neither reports it.
func TestClockBehind_FastPathReports(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "a")
	c.Advance(24 * time.Hour) // a day ahead: one round
	round(t, e, "a1", records.OutcomeProgress)
	ahead := c.Now()
	for _, cc := range []struct {
		name   string
		at     time.Time
		behind bool
	}{
		{"moved back a day", ahead.Add(-24 * time.Hour), true},
		{"at the newest commit", ahead, false},
		{"past it", ahead.Add(time.Hour), false},
	} {
		for _, fast := range []bool{true, false} {
			c.Set(cc.at)
			e = reopen(t, e, c)
			if !fast {
				if _, err := e.Store(); err != nil {
					t.Fatal(err)
				}
			}
			decide(t, e, "a1")
			if fast && e.sess.store != nil {
				t.Fatalf("%s: the fast path opened the store", cc.name)
			}
			newest, behind := e.ClockBehind()
			if behind != cc.behind || (behind && !newest.Equal(ahead)) {
				t.Errorf("%s (fast %v): ClockBehind = %v, %v; want %v, %v", cc.name, fast, newest, behind, ahead, cc.behind)
			}
		}
	}
}
