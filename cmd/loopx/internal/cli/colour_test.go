package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopx-dev/loopx/internal/testproject"
)

// openPTY opens a pseudo-terminal pair: the terminal a command writes to,
// and its other end a test reads what was written from.
func openPTY(t *testing.T) (term, reader *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return s, m
}

// onTerminal runs loopx args in p with standard output on a fresh
// pseudo-terminal and returns what reached it.
func onTerminal(t *testing.T, p *testproject.Project, args ...string) string {
	t.Helper()
	term, reader := openPTY(t)
	var errb bytes.Buffer
	RunWith(context.Background(), Options{StateHome: p.StateHome, Now: p.Clock.Now, Dir: p.Root}, args, strings.NewReader(""), term, &errb)
	term.Close()
	_ = reader.SetReadDeadline(time.Now().Add(5 * time.Second))
	out, _ := io.ReadAll(reader)
	return string(out)
}

// TestColour_OnATerminalOnly: loopx colours its own words when standard
// output is a terminal, and not under NO_COLOR, TERM=dumb, --json, or
// when the output is piped.
func TestColour_OnATerminalOnly(t *testing.T) {
	p := testproject.New(t, `project: name: "colour"
agents: a1: {host: "shell"}
goals: g1: {objective: "Ship the v2 API", quota: rounds: 3}
`)
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm")
	if out := onTerminal(t, p, "check", "--no-scan"); !strings.Contains(out, "\x1b[32mcheck ok\x1b[0m: ") {
		t.Errorf("check on a terminal: %q, want check ok in green", out)
	}
	if out := onTerminal(t, p, "check", "--no-scan", "--json"); strings.Contains(out, "\x1b[") {
		t.Errorf("check --json on a terminal is coloured: %q", out)
	}
	var piped, errb bytes.Buffer
	RunWith(context.Background(), Options{StateHome: p.StateHome, Now: p.Clock.Now, Dir: p.Root}, []string{"check", "--no-scan"}, strings.NewReader(""), &piped, &errb)
	if strings.Contains(piped.String(), "\x1b[") || !strings.Contains(piped.String(), "check ok: ") {
		t.Errorf("check piped: %q, want no colour", piped.String())
	}
	t.Setenv("TERM", "dumb")
	if out := onTerminal(t, p, "check", "--no-scan"); strings.Contains(out, "\x1b[") {
		t.Errorf("TERM=dumb coloured: %q", out)
	}
	t.Setenv("TERM", "xterm")
	t.Setenv("NO_COLOR", "1")
	if out := onTerminal(t, p, "check", "--no-scan"); strings.Contains(out, "\x1b[") || !strings.Contains(out, "check ok: ") {
		t.Errorf("NO_COLOR=1 coloured: %q", out)
	}
}
