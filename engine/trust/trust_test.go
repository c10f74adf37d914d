package trust

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestHostOf(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want string
	}{
		{"claude --resume", "claude"},
		{"/usr/local/bin/codex exec", "codex"},
		{"node /opt/lib/node_modules/.bin/claude", "claude"},
		{"python3 /usr/bin/aider --yes", "aider"},
		{"bash -c claude", ""},        // only a runtime's first argument names the program
		{"node server.js claude", ""}, // nor a later one
		{"", ""},
	} {
		if got := hostOf(strings.Fields(tc.cmd)); got != tc.want {
			t.Errorf("hostOf(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

func TestRunnerID_NamesThisProcessOfThisBoot(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	id := RunnerID(os.Getpid())
	if parts := strings.Split(id, ":"); len(parts) != 3 || parts[1] != strconv.Itoa(os.Getpid()) {
		t.Fatalf("RunnerID = %q", id)
	}
	if RunnerID(-1) != "" {
		t.Fatal("a process that does not exist has a runner id")
	}
}

// TestScanner_OutsideGit: outside git the scan sees files added, removed
// and modified (by size and time), reads loopx/ by content, leaves out
// what Own names, and is incomplete past its cap.
func TestScanner_OutsideGit(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "a")
	write("gone.txt", "g")
	write("loopx/loopx.cue", "x: 1")
	write(".loopx/own.db", "1")
	sc := Scanner{Root: root, SpecDir: "loopx", StateDir: ".loopx", Cap: 10, Own: func(rel string) bool { return rel == ".loopx/own.db" }}
	before := sc.Scan()
	if before.Incomplete() != "" {
		t.Fatal(before.Incomplete())
	}
	write("a.txt", "aa")
	write("new.txt", "n")
	write("loopx/loopx.cue", "x: 2") // same size: seen by content
	write(".loopx/own.db", "22")
	if err := os.Remove(filepath.Join(root, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(Changed(before, sc.Scan()), " ")
	if got != "a.txt gone.txt loopx/loopx.cue new.txt" {
		t.Fatalf("changed %q", got)
	}
	sc.Cap = 1
	if sc.Scan().Incomplete() == "" {
		t.Fatal("a walk past its cap is complete")
	}
}
