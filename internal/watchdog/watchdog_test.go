package watchdog

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// child is what the test binary does when a test starts it again with
// WATCHDOG_CHILD set: arm or cap, then never finish on its own.
func TestMain(m *testing.M) {
	switch os.Getenv("WATCHDOG_CHILD") {
	case "abort", "kill":
		e := Abort
		if os.Getenv("WATCHDOG_CHILD") == "kill" {
			e = Kill
		}
		if _, err := Arm(20*time.Millisecond, e); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(9)
		}
		spin()
	case "last":
		f, err := os.OpenFile(os.Getenv("WATCHDOG_RECORD"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			os.Exit(9)
		}
		l := Last{Stdout: []byte("{\"decision\":\"deny\"}\n"), Stderr: []byte("stopped past its deadline\n"), Record: []byte("{\"kind\":\"stopped\"}\n"), RecordFile: f, Status: 2}
		if _, err := ArmLast(20*time.Millisecond, l, Kill); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(9)
		}
		spin()
	case "cap":
		if err := CapMemory(256 << 20); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(9)
		}
		big := strings.Repeat("x", 1<<30) // past the cap in one allocation
		os.Stdout.WriteString(big[:1])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// spin never returns and never blocks (a policy built-in that runs on).
func spin() {
	n := 0
	for {
		n++
		if n < 0 {
			break
		}
	}
	os.Exit(0)
}

// runChild starts the test binary as child mode; it returns the child's
// exit status, the signal that ended it (0 if none) and its stderr.
func runChild(t *testing.T, mode string) (int, syscall.Signal, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WATCHDOG_CHILD="+mode)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return -1, ws.Signal(), stderr.String()
	}
	return ws.ExitStatus(), 0, stderr.String()
}

// TestArm_EndsARunawayProcess: a process that never finishes on its own
// ends at its timer: Abort with exit status 2 (a hook host blocks the
// call), Kill by SIGKILL (no answer).
func TestArm_EndsARunawayProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel timer is Linux's")
	}
	for _, tc := range []struct {
		mode   string
		status int
		sig    syscall.Signal
		stderr string
	}{
		{"abort", 2, 0, "SIGABRT: abort"},
		{"kill", -1, syscall.SIGKILL, ""},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			status, sig, stderr := runChild(t, tc.mode)
			if status != tc.status || sig != tc.sig || !strings.HasPrefix(stderr, tc.stderr) {
				t.Fatalf("status %d, signal %v, stderr %.200q; want status %d, signal %v, stderr starting %q", status, sig, stderr, tc.status, tc.sig, tc.stderr)
			}
		})
	}
}

// TestCapMemory_AnAllocationPastTheCapEnds: one allocation past the cap
// ends the process with status 2 instead of taking the memory (the
// runtime's out-of-memory throw, or, when a failed mapping reaches its
// collector first, its fatal SIGSEGV: status 2 either way).
func TestCapMemory_AnAllocationPastTheCapEnds(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("RLIMIT_DATA is Linux's")
	}
	status, sig, stderr := runChild(t, "cap")
	if status != 2 || sig != 0 || stderr == "" {
		t.Fatalf("status %d, signal %v, stderr %.300q; want status 2 and the runtime's report", status, sig, stderr)
	}
}

// TestArmLast_LeavesItsAnswerWithoutTheRuntime: a process that never
// finishes on its own ends at its timer by the handler that needs nothing
// of the Go runtime: exactly the prepared answer on stdout, the one line
// on stderr (no goroutine dump), the record appended, the prepared status.
func TestArmLast_LeavesItsAnswerWithoutTheRuntime(t *testing.T) {
	if !SupportsLast {
		t.Skip("no handler is written for this system: ArmLast is Arm")
	}
	record := filepath.Join(t.TempDir(), "spool.jsonl")
	if err := os.WriteFile(record, []byte("{\"kind\":\"earlier\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WATCHDOG_CHILD=last", "WATCHDOG_RECORD="+record)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("the child ended with %v, want exit status 2", err)
	}
	if stdout.String() != "{\"decision\":\"deny\"}\n" || stderr.String() != "stopped past its deadline\n" {
		t.Fatalf("stdout %q, stderr %.300q; want the prepared answer and line only", stdout.String(), stderr.String())
	}
	if b, _ := os.ReadFile(record); string(b) != "{\"kind\":\"earlier\"}\n{\"kind\":\"stopped\"}\n" {
		t.Fatalf("record file %q, want the record appended", b)
	}
}
