// Package trust gathers the facts loopx judges who did what by:
// which processes are above the caller (their start environments,
// the rounds they run in, the agent hosts among them: who is acting), and
// what an agent command changed in the project (the change scan). It
// only gathers facts; the engine's policies judge them.
package trust

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/loopx-dev/loopx/engine/hosts/registry"
)

// TypesSource is the Go source of this file: the doc comments of Process
// and Acting document the policy input fields that carry them (`loopx
// policy schema`).
//
//go:embed ancestry.go
var TypesSource string

// AncestryOptions configure how the engine finds who is acting (the
// channel a request came through): the processes above the caller, read from /proc.
type AncestryOptions struct {
	// Off turns the ancestry walk off: Ancestry then reports no process.
	// Only for callers that are not a user's command line (none today).
	Off bool
	// StopAt ends the walk at this process id (it and its ancestors are not
	// read); 0 walks up to init. A test suite run inside an agent host or
	// an agent round sets it to its own process id, so that its scripts see
	// only the processes they start.
	StopAt int
	// IgnoreHosts stops treating known agent host programs (claude, codex,
	// …) as agents; the environment and runner facts still count.
	IgnoreHosts bool
	// From is the caller's process id when the caller is another process
	// (a client `loopx serve` runs a command for): the walk starts at its
	// parent, not at this process's. 0 is this process; below 0 is a
	// caller with no process (an HTTP client). A caller whose
	// process cannot be read is agent-like (Acting.Agentish says so): it
	// is never taken for a human.
	From int
}

// Process is one ancestor process of the caller as /proc showed it
// (input.answer.channel.ancestry[_]).
type Process struct {
	// PID is its process id; Start its start time in clock ticks after boot
	// (field 22 of /proc/PID/stat): pid and start together name it.
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
	// Cmd is its command line, arguments joined by spaces (at most 200
	// bytes).
	Cmd string `json:"cmd"`
	// Agent is LOOPX_AGENT in the environment it started with (its
	// /proc/PID/environ, not what it set later), "" when unset.
	Agent string `json:"agent,omitempty"`
	// Round is LOOPX_ROUND in the environment it started with.
	Round string `json:"round,omitempty"`
	// Runner is the agent of the rounds this process runs when the state
	// records it as their runner (`loopx run`, `loopx watch --exec`: see
	// RunnerID); its executable's name or path plays no part.
	Runner string `json:"runner,omitempty"`
	// Host is the agent host program it runs (claude, codex, …), "" when
	// none or when AncestryOptions.IgnoreHosts.
	Host string `json:"host,omitempty"`
}

// Acting is what the caller's ancestry says about who acts.
type Acting struct {
	// Ancestry lists the caller's ancestors, parent first.
	Ancestry []Process `json:"ancestry"`
	// Agents are the distinct agent ids the ancestry carries (LOOPX_AGENT at
	// start, the runner's round agent), sorted; more than one means a
	// process posed as another agent than its ancestors.
	Agents []string `json:"agents"`
	// Agentish describes the nearest ancestor that runs in a round, runs
	// rounds, carries an agent or is an agent host ("" when none).
	Agentish string `json:"agentish"`
}

// agentHosts are the program names of agent hosts whose tool calls run as
// their descendants (Claude Code's Bash tool, Codex, Cursor's agent, …):
// every host adapter's Programs.
var agentHosts = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, p := range registry.Programs() {
		m[p] = true
	}
	return m
})

// procStat reads the parent pid and the start time of pid.
func procStat(pid int) (ppid int, start uint64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// pid (comm) state ppid … ; comm may hold spaces and parentheses.
	rest := string(b)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 20 {
		return 0, 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil {
		return 0, 0, fmt.Errorf("malformed /proc/%d/stat: %v", pid, err)
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("malformed /proc/%d/stat: %v", pid, err)
	}
	return ppid, start, nil
}

// bootID names this boot of the machine ("" when unknown), so that a
// runner id never matches a process of another boot.
func bootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}

// RunnerID names the process pid of this boot ("BOOT:PID:START"), "" when
// /proc cannot tell. Run records it on the rounds it runs (records.Round
// Runner), so that their descendants are known whatever environment or
// executable they give themselves.
func RunnerID(pid int) string {
	_, start, err := procStat(pid)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", bootID(), pid, start)
}

// hostOf names the agent host a command line runs ("" when none): its
// program, or the script a runtime runs (node …/claude).
func hostOf(args []string) string {
	for i, a := range args {
		if i > 1 {
			break
		}
		if name := filepath.Base(a); agentHosts()[name] {
			return name
		}
		if i == 0 && !slices.Contains([]string{"node", "bun", "deno", "python", "python3"}, filepath.Base(a)) {
			break // only a runtime's first argument names the program it runs
		}
	}
	return ""
}

// ReadAncestry walks the caller's ancestors (parent first, at most 64)
// and says who acts: the agents their start environments carry
// (LOOPX_AGENT), the rounds they run in, which of them runners names as a
// round runner (runner id → its round's agent, "" for none; nil knows
// none; asked once per ancestor), and which
// is an agent host. It only gathers facts (the gate decision judges
// them). Linux only (/proc); elsewhere the ancestry is empty. The caller's
// own environment is not read: a process chooses its own environment,
// not its parents'. A process that detaches itself (double fork, setsid)
// or rewrites its environment in memory escapes it (docs/trust.md "Trust
// model").
func ReadAncestry(o AncestryOptions, runners func(id string) string) Acting {
	a := Acting{Ancestry: []Process{}, Agents: []string{}}
	if o.Off {
		return a
	}
	boot := bootID()
	pid := os.Getppid()
	if o.From < 0 {
		// A caller with no process (an HTTP client of loopx serve): no
		// ancestry to read, so never taken for a human at a terminal.
		a.Agentish = "the caller has no process loopx can read (an HTTP client)"
		return a
	}
	if o.From != 0 {
		ppid, _, err := procStat(o.From)
		if err != nil {
			a.Agentish = fmt.Sprintf("the calling process %d cannot be read", o.From)
			return a
		}
		pid = ppid
	}
	for depth := 0; pid > 1 && depth < 64 && pid != o.StopAt; depth++ {
		ppid, start, err := procStat(pid)
		if err != nil {
			break
		}
		p := Process{PID: pid, Start: start}
		raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		p.Cmd = strings.Join(args, " ")
		if len(p.Cmd) > 200 {
			p.Cmd = p.Cmd[:200]
		}
		if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid)); err == nil {
			for _, kv := range strings.Split(string(env), "\x00") {
				if v, ok := strings.CutPrefix(kv, "LOOPX_AGENT="); ok {
					p.Agent = v
				} else if v, ok := strings.CutPrefix(kv, "LOOPX_ROUND="); ok {
					p.Round = v
				}
			}
		}
		if runners != nil {
			p.Runner = runners(fmt.Sprintf("%s:%d:%d", boot, pid, start))
		}
		if !o.IgnoreHosts {
			p.Host = hostOf(args)
		}
		for _, ag := range []string{p.Agent, p.Runner} {
			if ag != "" && !slices.Contains(a.Agents, ag) {
				a.Agents = append(a.Agents, ag)
			}
		}
		if a.Agentish == "" {
			switch {
			case p.Runner != "":
				a.Agentish = fmt.Sprintf("process %d is a loopx agent runner (agent %s)", pid, p.Runner)
			case p.Round != "":
				a.Agentish = fmt.Sprintf("process %d (%s) runs in round %s", pid, p.Cmd, p.Round)
			case p.Agent != "":
				a.Agentish = fmt.Sprintf("process %d (%s) runs as agent %s", pid, p.Cmd, p.Agent)
			case p.Host != "":
				a.Agentish = fmt.Sprintf("process %d is the agent host %s", pid, p.Host)
			}
		}
		a.Ancestry = append(a.Ancestry, p)
		pid = ppid
	}
	slices.Sort(a.Agents)
	return a
}
