package serveclient

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// A record's pid must run this program: this process does; a process of
// another program (one that wrote its own pid and socket into the record)
// does not, nor does a pid that is gone.
func TestSameProgram(t *testing.T) {
	if err := SameProgram(os.Getpid()); err != nil {
		t.Fatalf("this process: %v", err)
	}
	other := exec.Command("sleep", "5")
	if err := other.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	if err := SameProgram(other.Process.Pid); !errors.Is(err, ErrNotServer) {
		t.Fatalf("a sleep process: %v, want ErrNotServer", err)
	}
	if err := SameProgram(1 << 30); !errors.Is(err, ErrNotServer) {
		t.Fatalf("no such pid: %v, want ErrNotServer", err)
	}
}
