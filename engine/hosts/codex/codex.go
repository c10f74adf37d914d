// Package codex is the Codex host: its hook protocol (Claude Code's
// payload and settings shape, but only deny or nothing as answers),
// .codex/hooks.json, the program it runs as.
package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/pelletier/go-toml/v2"
)

// Name is the host's name (agents.<a>.host, `loopx hook codex`).
const Name = "codex"

// Matcher is the PreToolUse matcher loopx installs: the tools that write
// or run (Bash, shell, apply_patch, Edit, Write) and every MCP tool.
const Matcher = "Bash|shell|apply_patch|Edit|Write|mcp__.*"

// Adapter is Codex's hosts.Adapter.
type Adapter struct{ hosts.ClaudeProtocol }

// Name is "codex".
func (Adapter) Name() string { return Name }

// Programs are codex's.
func (Adapter) Programs() []string { return []string{"codex"} }

// DefaultAgent is "codex".
func (Adapter) DefaultAgent() string { return "codex" }

// SettingsFile is .codex/hooks.json.
func (Adapter) SettingsFile() string { return ".codex/hooks.json" }

// ProjectDirEnv is "": Codex names no project to its hooks.
func (Adapter) ProjectDirEnv() string { return "" }

// Hooks are PreToolUse on Matcher, Stop and SessionStart
// (hosts.ClaudeEntries).
func (Adapter) Hooks(args string) []hosts.Hook { return hosts.ClaudeEntries(Name, Matcher, args) }

// CanAsk is false: Codex marks an ask "unsupported", fails the hook run
// and lets the call proceed.
func (Adapter) CanAsk() bool { return false }

// PermissionAnswer answers deny or nothing, the only answers Codex
// honours: deny with its (non-empty) reason; an ask as a deny whose reason
// ends with what a human must do (AskNote); allow and defer with nothing
// (Codex's allow without updatedInput is "unsupported" and lets the call
// proceed anyway).
func (Adapter) PermissionAnswer(verdict, reason, goal string, codes []string) ([]byte, error) {
	reason, err := hosts.CheckVerdict(verdict, reason)
	if err != nil || verdict == "allow" || verdict == "defer" {
		return nil, err
	}
	if verdict == "ask" {
		reason += ". " + AskNote(goal, codes)
	}
	return hosts.PermissionReplyLine("deny", reason)
}

// EnableSteps: Codex runs project hooks only with its hooks feature on,
// the project trusted, and each hook reviewed in /hooks.
func (Adapter) EnableSteps(root string) []string {
	return []string{
		"turn Codex's hooks feature on: `[features]` `hooks = true` in ~/.codex/config.toml (Codex before 0.130: `codex_hooks = true`), or start it with `codex --enable hooks`",
		fmt.Sprintf("trust this project, or Codex ignores its .codex/: `[projects.%q]` `trust_level = \"trusted\"` in ~/.codex/config.toml (or accept Codex's trust prompt here)", root),
		"review and trust loopx's hooks in Codex's /hooks menu (Codex pins each hook by hash: trust them again after an install that changed them)",
	}
}

// askAdvice says, per reason code of an ask, what lets the call happen.
// A grant never overrides an ask (the policy's objections come first), so
// none of them suggests one; an opaque line can never be allowed at all.
var askAdvice = []struct{ code, advice string }{
	{"command_opaque", "loopx cannot read this command line, so no spec setting allows it: a human must run it themselves, or the agent may rewrite it so that loopx can read it (plain commands: no $(…), eval, `| sh`, inline -c/-e code)"},
	{"command_ask", "The spec asks a human for it (goals.%s.scope.commands.ask): a human must run it themselves, or take the pattern out of scope.commands.ask; then the agent may retry"},
	{"command_not_allowed", "It matches no pattern of goals.%s.scope.commands.allow: a human must run it themselves, or add a matching pattern there; then the agent may retry"},
}

// AskNote ends the reason of an ask that loopx turns into a deny on
// Codex: what a human must do for the call to happen, by the decision's
// reason codes (askAdvice; "" goal: "<goal>"). Without a known code: a
// human must run it themselves.
func AskNote(goal string, codes []string) string {
	if goal == "" {
		goal = "<goal>"
	}
	var advice []string
	for _, a := range askAdvice {
		if slices.Contains(codes, a.code) {
			if strings.Contains(a.advice, "%s") {
				advice = append(advice, fmt.Sprintf(a.advice, goal))
			} else {
				advice = append(advice, a.advice)
			}
		}
	}
	if len(advice) == 0 {
		advice = append(advice, "A human must run it themselves")
	}
	return "Codex cannot ask for confirmation, so loopx blocks this call (an ask). " + strings.Join(advice, ". ")
}

// SandboxFile is .codex/config.toml: Codex's project configuration, read
// for a trusted project.
func (Adapter) SandboxFile() string { return ".codex/config.toml" }

// Mode is the sandbox_mode install --sandbox sets: Codex's tools write
// only the workspace (and the temp directories). Codex's legacy sandbox
// settings cannot deny paths inside the workspace (loopx/, .loopx/): the
// hooks and `loopx run` keep those.
const Mode = "workspace-write"

// modeLine is the line install --sandbox writes.
const modeLine = `sandbox_mode = "` + Mode + `"`

// strictness orders Codex's sandbox modes, strictest first; an unknown
// mode counts as the loosest.
var strictness = []string{"read-only", Mode, "danger-full-access"}

// topLevel returns the index of the top-level sandbox_mode line of lines
// (before the first table header), -1 when there is none.
func topLevel(lines []string) int {
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			return -1
		}
		if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == "sandbox_mode" {
			return i
		}
	}
	return -1
}

// currentMode reads the top-level sandbox_mode of a config.toml ("" when
// unset). Errors: the file is not TOML, or sandbox_mode is not a string.
func currentMode(doc []byte) (string, error) {
	var v struct {
		SandboxMode any `toml:"sandbox_mode"`
	}
	if err := toml.Unmarshal(doc, &v); err != nil {
		return "", fmt.Errorf("config.toml is not TOML: %w", err)
	}
	if v.SandboxMode == nil {
		return "", nil
	}
	m, ok := v.SandboxMode.(string)
	if !ok {
		return "", errors.New(`config.toml "sandbox_mode" is not a string`)
	}
	return m, nil
}

// MergeSandbox sets the top-level sandbox_mode to workspace-write: a
// stricter or equal mode (read-only, workspace-write) stays as the user
// set it; a looser one's line is replaced and recorded (Old: its value,
// Line: the line);
// none: the line goes first in the file. Every other byte is kept.
func (Adapter) MergeSandbox(doc []byte, _ hosts.Sandbox) ([]byte, []hosts.SandboxEdit, error) {
	cur, err := currentMode(doc)
	if err != nil {
		return nil, nil, err
	}
	if i := slices.Index(strictness, cur); cur != "" && i >= 0 && i <= 1 {
		return doc, nil, nil
	}
	set, _ := json.Marshal(Mode)
	lines := strings.SplitAfter(string(doc), "\n")
	if i := topLevel(lines); i >= 0 {
		old, _ := json.Marshal(cur)
		line := lines[i]
		nl := ""
		if strings.HasSuffix(lines[i], "\n") {
			nl = "\n"
		}
		lines[i] = modeLine + nl
		return []byte(strings.Join(lines, "")), []hosts.SandboxEdit{{Key: "sandbox_mode", Set: set, Old: old, Line: line}}, nil
	}
	return append([]byte(modeLine+"\n"), doc...), []hosts.SandboxEdit{{Key: "sandbox_mode", Set: set}}, nil
}

// UnmergeSandbox puts back what MergeSandbox changed: the line it added
// goes, the line it replaced comes back; a sandbox_mode the user changed
// since stays.
func (Adapter) UnmergeSandbox(doc []byte, edits []hosts.SandboxEdit) ([]byte, error) {
	for _, e := range edits {
		if e.Key != "sandbox_mode" {
			continue
		}
		lines := strings.SplitAfter(string(doc), "\n")
		i := topLevel(lines)
		if i < 0 || strings.TrimRight(lines[i], "\r\n") != modeLine {
			continue
		}
		if e.Line == "" {
			lines = slices.Delete(lines, i, i+1)
		} else {
			lines[i] = e.Line
		}
		doc = []byte(strings.Join(lines, ""))
	}
	return doc, nil
}

// CheckSandbox reports a sandbox_mode that is no longer workspace-write.
func (Adapter) CheckSandbox(doc []byte, edits []hosts.SandboxEdit) []string {
	if !slices.ContainsFunc(edits, func(e hosts.SandboxEdit) bool { return e.Key == "sandbox_mode" }) {
		return nil
	}
	cur, err := currentMode(doc)
	switch {
	case err != nil:
		return []string{err.Error() + ": the sandbox_mode loopx installed is gone"}
	case cur == "":
		return []string{fmt.Sprintf("sandbox_mode was removed (install set it to %q)", Mode)}
	case cur != Mode:
		return []string{fmt.Sprintf("sandbox_mode is %q, not %q as installed", cur, Mode)}
	}
	return nil
}

// SandboxNeeds: on Linux Codex's sandbox uses Landlock and seccomp, built
// into the kernel and Codex: nothing to find on PATH.
func (Adapter) SandboxNeeds() []string { return nil }

// SandboxNote says what changes for the agent's own loopx calls once
// Codex's sandbox is on.
func (Adapter) SandboxNote() string {
	return "with Codex's own sandbox on (sandbox_mode = \"workspace-write\", or hooks install --sandbox), Codex's commands can still write the work tree, .loopx/ included, but not loopx's anchor directory outside it: every loopx command an agent runs that writes the state (round start and finish, evidence add, todo add and claim, gate raise) fails there unless the session runs under `loopx run`, whose broker serves them; loopx's hooks run outside the sandbox and keep answering"
}
