package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel"
)

// confirmHuman asks the person at the controlling terminal to type the
// gate id back (design §8: a human answer needs a TTY confirmation) and
// returns what was typed (trimmed; "" when nothing), or why the terminal
// could not be opened. It reads /dev/tty, not stdin, so an agent piping
// input cannot confirm. It only gathers the facts: the gate decision's
// confirmation rule judges them.
func confirmHuman(g kernel.Gate, option string) (typed, ttyErr string) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return "", err.Error()
	}
	defer tty.Close()
	// Every value is rendered inert: a question raised by an agent must not
	// reach the human's terminal as escape sequences (a faked prompt).
	fmt.Fprintf(tty, "gate %s (%s): %s\nanswer: %s\ntype the gate id to confirm: ",
		inert.Line(g.ID), inert.Line(g.Goal), inert.Line(g.Question), inert.Line(option))
	line, _ := bufio.NewReader(tty).ReadString('\n')
	return strings.TrimSpace(line), ""
}

// agentAncestor returns a description of the nearest ancestor process that
// runs inside an agent round (LOOPX_ROUND in its environment), or "" when
// none does. Unsetting LOOPX_ROUND in a child does not hide the round its
// parents run in. Linux only (/proc); elsewhere it finds nothing. A process
// that detaches itself (double fork, setsid) escapes it: this check makes
// impersonating a human visible work, it cannot make it impossible.
func agentAncestor() string {
	pid := os.Getppid()
	for depth := 0; pid > 1 && depth < 64; depth++ {
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err == nil {
			for _, kv := range strings.Split(string(env), "\x00") {
				if strings.HasPrefix(kv, "LOOPX_ROUND=") && len(kv) > len("LOOPX_ROUND=") {
					cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
					return fmt.Sprintf("process %d (%s) runs in round %s", pid, strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " ")), strings.TrimPrefix(kv, "LOOPX_ROUND="))
				}
			}
		}
		if isRunner(pid) {
			return fmt.Sprintf("process %d is a loopx agent runner", pid)
		}
		if host := agentHost(pid); host != "" && !IgnoreAgentHosts {
			return fmt.Sprintf("process %d is the agent host %s", pid, host)
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return ""
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		rest := string(stat)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			return ""
		}
		next := 0
		fmt.Sscanf(f[1], "%d", &next)
		pid = next
	}
	return ""
}

// isRunner reports whether pid is this loopx binary running agent rounds
// (`loopx run`, `loopx watch --exec`): its descendants are agent commands,
// whatever environment they gave themselves.
func isRunner(pid int) bool {
	self, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return false
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil || exe != self {
		return false
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
	for i, a := range args {
		if i == 0 || strings.HasPrefix(a, "-") {
			continue
		}
		switch a {
		case "run":
			return true
		case "watch":
			return slices.Contains(args, "--exec")
		}
		return false // the first non-flag argument is the command
	}
	return false
}

// IgnoreAgentHosts turns off the agent-host ancestor check. Only test
// builds set it (cmd/loopx's TestMain), so that the test suite passes when
// a developer runs it from inside an agent host.
var IgnoreAgentHosts = false

// agentHosts are the program names of agent hosts whose tool calls run as
// their descendants (Claude Code's Bash tool, Codex, Cursor's agent, …).
var agentHosts = map[string]bool{"claude": true, "codex": true, "cursor-agent": true, "aider": true,
	"gemini": true, "opencode": true, "goose": true, "amp": true}

// agentHost names the agent host pid runs ("" when none): its program, or
// the script a runtime runs (node …/claude), is a known agent host.
func agentHost(pid int) string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
	for i, a := range args {
		if i > 1 {
			break
		}
		if name := filepath.Base(a); agentHosts[name] {
			return name
		}
		if i == 0 && !slices.Contains([]string{"node", "bun", "deno", "python", "python3"}, filepath.Base(a)) {
			break // only a runtime's first argument names the program it runs
		}
	}
	return ""
}
