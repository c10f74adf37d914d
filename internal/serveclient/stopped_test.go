package serveclient

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// WatchStopped expires a call on a process that stays stopped, and
// leaves one on a running process (or one stopped and resumed) alone.
func TestWatchStopped(t *testing.T) {
	was := StoppedFor
	StoppedFor = 300 * time.Millisecond
	t.Cleanup(func() { StoppedFor = was })
	for _, tc := range []struct {
		name    string
		stop    bool
		resume  bool
		expired bool
	}{
		{"running", false, false, false},
		{"stopped", true, false, true},
		{"stopped and resumed at once", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := exec.Command("sleep", "30")
			if err := c.Start(); err != nil {
				t.Skip("no sleep:", err)
			}
			t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
			pid := c.Process.Pid
			if tc.stop {
				if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
					t.Fatal(err)
				}
				for !processStopped(pid) {
					time.Sleep(time.Millisecond)
				}
			}
			if tc.resume {
				if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
					t.Fatal(err)
				}
			}
			var called time.Time
			done := WatchStopped(pid, func(t time.Time) error { called = t; return nil })
			time.Sleep(StoppedFor + 5*stoppedPoll)
			if got := done(); got != tc.expired || called.IsZero() == tc.expired {
				t.Errorf("expired %v (expire called at %v), want %v", got, called, tc.expired)
			}
		})
	}
}
