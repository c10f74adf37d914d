package cli

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// testClockEnv names the test clock: an RFC 3339 instant that pins "now" in
// test builds. This file is the only code that reads it
// (TestClock_OnlyOneReader scans the sources).
const testClockEnv = "LOOPX_NOW"

// ignoredOnce prints the "LOOPX_NOW is ignored" note once per process.
var ignoredOnce sync.Once

// pinnedClock returns the instant $LOOPX_NOW pins and true, in a test build
// (a binary built by `go test`, testing.Testing) only. A release build
// ignores the variable and says so once on stderr: an agent that could set
// it would move itself out of its quota window, end leases at once or make
// them last for years. Errors: a usage error when a test build is given a
// value that is not RFC 3339.
func (a *app) pinnedClock() (time.Time, bool, error) {
	v := a.getenv(testClockEnv)
	if v == "" {
		return time.Time{}, false, nil
	}
	if !testing.Testing() {
		ignoredOnce.Do(func() {
			fmt.Fprintf(a.stderr, "loopx: %s is ignored: only test builds pin the clock; using the system clock\n", testClockEnv)
		})
		return time.Time{}, false, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, false, usagef("%s=%q is not an RFC 3339 time (e.g. 2026-11-29T10:00:00Z)", testClockEnv, v)
	}
	return t, true, nil
}

// clock returns loopx's one clock: the caller's (Options.Now), else the
// system's, or in a test build the instant $LOOPX_NOW pins (pinnedClock).
func (a *app) clock() (func() time.Time, error) {
	if a.opts.Now != nil {
		return a.opts.Now, nil
	}
	t, pinned, err := a.pinnedClock()
	if err != nil || !pinned {
		return time.Now, err
	}
	return func() time.Time { return t }, nil
}

// warnClockBehind writes one line on stderr when the clock reads earlier
// than the newest instant the store recorded (engine.ClockBehind): loopx
// reports a clock moved back, and keeps counting what was dated after now.
func (a *app) warnClockBehind() {
	if newest, behind := a.eng.ClockBehind(); behind {
		fmt.Fprintln(a.stderr, clockBehindLine(a.eng.Now(), newest))
	}
}

// clockBehindLine is the report of a clock moved back, on stderr and in
// `loopx doctor`.
func clockBehindLine(now, newest time.Time) string {
	return fmt.Sprintf("loopx: clock: the system clock (%s) is earlier than this store's newest commit (%s): it was moved back; quota, rounds and leases dated after now still count",
		now.UTC().Format(time.RFC3339), newest.UTC().Format(time.RFC3339))
}
