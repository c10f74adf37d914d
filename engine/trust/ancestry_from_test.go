package trust

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReadAncestry_From walks from another process's parent: a server
// judging its client sees the client's ancestors, never its own.
func TestReadAncestry_From(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	sh := exec.Command("sh", "-c", "sleep 5; :")
	sh.Env = []string{"LOOPX_AGENT=bob", "PATH=" + os.Getenv("PATH")}
	if err := sh.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { _ = sh.Process.Kill(); _ = sh.Wait() }()
	var child int
	for i := 0; i < 200 && child == 0; i++ {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", sh.Process.Pid, sh.Process.Pid))
		if f := strings.Fields(string(b)); len(f) > 0 {
			child, _ = strconv.Atoi(f[0])
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if child == 0 {
		t.Skip("the shell's child did not show")
	}
	tests := []struct {
		name      string
		o         AncestryOptions
		wantAgent bool
		agentish  bool
	}{
		{"the client's parent runs as bob", AncestryOptions{From: child, StopAt: os.Getpid()}, true, true},
		{"an unreadable caller is agent-like", AncestryOptions{From: 1 << 30}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ReadAncestry(tt.o, nil)
			got := len(a.Agents) == 1 && a.Agents[0] == "bob"
			if got != tt.wantAgent {
				t.Errorf("agents %v, want bob: %v", a.Agents, tt.wantAgent)
			}
			if (a.Agentish != "") != tt.agentish {
				t.Errorf("agentish %q, want set: %v", a.Agentish, tt.agentish)
			}
		})
	}
}
