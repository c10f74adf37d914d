package serveclient

import (
	"os/exec"
	"runtime"
	"strings"
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

// Stopped tells a server held by a tracer (a debugger) from one stopped
// by a signal: SIGCONT resumes only the second.
func TestStopped_ByATracer(t *testing.T) {
	runtime.LockOSThread() // ptrace: the tracer is this thread
	defer runtime.UnlockOSThread()
	c := exec.Command("sleep", "30")
	c.SysProcAttr = &syscall.SysProcAttr{Ptrace: true} // held at its exec
	if err := c.Start(); err != nil {
		t.Skip("cannot trace a child:", err)
	}
	defer func() { _ = c.Process.Kill(); _ = c.Wait() }()
	pid := c.Process.Pid
	deadline := time.Now().Add(10 * time.Second)
	for processState(pid) != 't' && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if s := processState(pid); s != 't' {
		t.Skipf("the traced child's state is %q, not t", s)
	}
	msg := Stopped(pid).Error()
	if !strings.Contains(msg, "held by a debugger or tracer") || strings.Contains(msg, "kill -CONT") {
		t.Errorf("Stopped of a traced process: %q; want it to name the debugger, not kill -CONT", msg)
	}
	s := exec.Command("sleep", "30")
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Process.Kill(); _ = s.Wait() }()
	_ = syscall.Kill(s.Process.Pid, syscall.SIGSTOP)
	for !processStopped(s.Process.Pid) {
		time.Sleep(time.Millisecond)
	}
	if msg := Stopped(s.Process.Pid).Error(); !strings.Contains(msg, "kill -CONT") {
		t.Errorf("Stopped of a process stopped by a signal: %q; want kill -CONT", msg)
	}
}
