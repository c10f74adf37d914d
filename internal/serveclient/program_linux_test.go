package serveclient

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
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

// TestSameProgram_ACopy: a copy of this program (another file, the same
// build) is the same program.
func TestSameProgram_ACopy(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.WriteFile(cp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(cp, "-test.run=^TestSleepHelper$")
	c.Env = append(os.Environ(), "LOOPX_SLEEP_HELPER=1")
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Process.Kill(); _ = c.Wait() }()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "sleeping\n" {
		t.Fatalf("the copy did not start: %q", line)
	}
	if err := SameProgram(c.Process.Pid); err != nil {
		t.Fatalf("a copy of this program: %v", err)
	}
}

// TestSleepHelper sleeps as a copy of this program for
// TestSameProgram_ACopy (LOOPX_SLEEP_HELPER=1); it does nothing otherwise.
func TestSleepHelper(t *testing.T) {
	if os.Getenv("LOOPX_SLEEP_HELPER") != "1" {
		return
	}
	os.Stdout.WriteString("sleeping\n")
	time.Sleep(time.Minute)
}

// sameBytes compares to the end, across its 1 MiB reads.
func TestSameBytes(t *testing.T) {
	big := bytes.Repeat([]byte("loopx"), 500_000) // 2.5 MB: three reads
	other := bytes.Clone(big)
	other[len(other)-1] = 'X'
	for _, tc := range []struct {
		name string
		a, b []byte
		want bool
	}{
		{"same", big, bytes.Clone(big), true},
		{"last byte differs", big, other, false},
		{"shorter", big, big[:len(big)-1], false},
		{"empty", nil, nil, true},
	} {
		if got := sameBytes(bytes.NewReader(tc.a), bytes.NewReader(tc.b)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
