package caller

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestNilIsThisProcess(t *testing.T) {
	var p *Process
	t.Setenv("LOOPX_CALLER_TEST", "x")
	if p.Getenv("LOOPX_CALLER_TEST") != "x" || p.Remote() || p.Pid() != os.Getpid() {
		t.Fatalf("nil Process is not this process")
	}
	wd, _ := os.Getwd()
	if got, _ := p.Getwd(); got != wd {
		t.Fatalf("Getwd = %q, want %q", got, wd)
	}
}

// TestFromPID reads a child's environment and working directory from /proc,
// not this process's: the child started with its own.
func TestFromPID(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc")
	}
	dir := t.TempDir()
	cmd := exec.Command("sleep", "5")
	cmd.Dir = dir
	cmd.Env = []string{"LOOPX_AGENT=claude", "A=1", "A=2"}
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// Start returns once the child is forked: its /proc shows this
	// process's environment until it has exec'd sleep, and none for a
	// moment after its program is sleep's (the kernel sets the new
	// environment's place last).
	for deadline := time.Now().Add(5 * time.Second); ; {
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", cmd.Process.Pid))
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", cmd.Process.Pid))
		if filepath.Base(exe) == "sleep" && len(env) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	p, err := FromPID(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(dir)
	tests := []struct{ name, got, want string }{
		{"agent", p.Getenv("LOOPX_AGENT"), "claude"},
		{"deduplicated by exec", p.Getenv("A"), "2"},
		{"unset", p.Getenv("HOME"), ""},
		{"dir", p.Dir, want},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if p.StdinTTY {
		t.Errorf("StdinTTY true for /dev/null")
	}
	if !p.Remote() || p.Pid() != cmd.Process.Pid {
		t.Errorf("Remote/Pid wrong")
	}
	if _, err := FromPID(0); err == nil {
		t.Errorf("FromPID(0) succeeded")
	}
}

func TestLookupEnv_FirstOfDuplicatesWins(t *testing.T) {
	p := &Process{Env: []string{"A=1", "B=", "A=2"}}
	if v, ok := p.LookupEnv("A"); v != "1" || !ok {
		t.Errorf("A = %q, %v; want 1 (Go's own getenv keeps the first)", v, ok)
	}
	if v, ok := p.LookupEnv("B"); v != "" || !ok {
		t.Errorf("B = %q, %v; want set and empty", v, ok)
	}
	if _, ok := p.LookupEnv("C"); ok {
		t.Errorf("C set")
	}
}
