package watch

import (
	"sync"
	"time"
)

// Clock is the watcher's time source: decisions are made at Now, and the
// next_check_at timer is armed with At. Tests use a ManualClock; the
// debounce of file events always runs on real time.
type Clock interface {
	// Now is the current instant.
	Now() time.Time
	// At returns a channel that receives once when the clock reaches t (at
	// once when t is not in the future), and a function that cancels it.
	At(t time.Time) (<-chan time.Time, func())
}

// RealClock is the wall clock.
type RealClock struct{}

// Now is time.Now.
func (RealClock) Now() time.Time { return time.Now() }

// At arms a time.Timer for t.
func (RealClock) At(t time.Time) (<-chan time.Time, func()) {
	tm := time.NewTimer(time.Until(t))
	return tm.C, func() { tm.Stop() }
}

// ManualClock is a clock that moves only when told to (Set, Advance): timers
// armed with At fire when it reaches their instant. A ManualClock that is
// never moved pins the time (LOOPX_NOW) and its timers never fire. It is
// safe for concurrent use.
type ManualClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters map[*manualWaiter]struct{}
}

type manualWaiter struct {
	at time.Time
	ch chan time.Time
}

// NewManualClock returns a ManualClock reading t.
func NewManualClock(t time.Time) *ManualClock {
	return &ManualClock{now: t, waiters: map[*manualWaiter]struct{}{}}
}

// Now is the clock's current instant.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// At returns a channel that receives when the clock is moved to t or later.
func (c *ManualClock) At(t time.Time) (<-chan time.Time, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &manualWaiter{at: t, ch: make(chan time.Time, 1)}
	if !t.After(c.now) {
		w.ch <- c.now
		return w.ch, func() {}
	}
	c.waiters[w] = struct{}{}
	return w.ch, func() {
		c.mu.Lock()
		delete(c.waiters, w)
		c.mu.Unlock()
	}
}

// Set moves the clock to t and fires every timer due by then.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
	for w := range c.waiters {
		if !w.at.After(t) {
			w.ch <- t
			delete(c.waiters, w)
		}
	}
}

// Advance moves the clock forward by d (see Set).
func (c *ManualClock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// Pending is how many timers wait for the clock to move.
func (c *ManualClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}
