// Package claudecode is the Claude Code host: its hook protocol (the
// payload, the answers it honours), .claude/settings.json, the program it
// runs as.
package claudecode

import (
	"runtime"
	"strings"

	"github.com/loopx-dev/loopx/engine/hosts"
)

// Name is the host's name (agents.<a>.host, `loopx hook claude-code`).
const Name = "claude-code"

// Matcher is the PreToolUse matcher loopx installs: the tools that write
// or run (Bash, Edit, Write, MultiEdit, NotebookEdit) and every MCP tool.
// Read-only tools (Read, Grep, Glob, …) start no process.
const Matcher = "Bash|Edit|Write|MultiEdit|NotebookEdit|mcp__.*"

// Adapter is Claude Code's hosts.Adapter.
type Adapter struct{ hosts.ClaudeProtocol }

// Name is "claude-code".
func (Adapter) Name() string { return Name }

// Programs are claude's.
func (Adapter) Programs() []string { return []string{"claude"} }

// DefaultAgent is "claude".
func (Adapter) DefaultAgent() string { return "claude" }

// SettingsFile is .claude/settings.json.
func (Adapter) SettingsFile() string { return ".claude/settings.json" }

// ProjectDirEnv is CLAUDE_PROJECT_DIR, which Claude Code sets for every
// hook to the project whose .claude/ it loaded.
func (Adapter) ProjectDirEnv() string { return "CLAUDE_PROJECT_DIR" }

// Hooks are PreToolUse on Matcher, Stop and SessionStart
// (hosts.ClaudeEntries).
func (Adapter) Hooks(args string) []hosts.Hook { return hosts.ClaudeEntries(Name, Matcher, args) }

// CanAsk is true: an ask prompts Claude Code's user.
func (Adapter) CanAsk() bool { return true }

// PermissionAnswer answers allow, ask and deny as permissionDecision of the
// same name (allow skips the user's prompt, so the policy answers it only
// for an explicit spec grant), and defer with nothing: the user's own
// rules and prompt decide.
func (Adapter) PermissionAnswer(verdict, reason, _ string, _ []string) ([]byte, error) {
	reason, err := hosts.CheckVerdict(verdict, reason)
	if err != nil || verdict == "defer" {
		return nil, err
	}
	return hosts.PermissionReplyLine(verdict, reason)
}

// EnableSteps: a new session reads the hooks.
func (Adapter) EnableSteps(string) []string {
	return []string{
		"start a new Claude Code session in this project (Claude Code reads hooks when a session starts; a running session asks to review changed hooks in /hooks)",
	}
}

// SandboxFile is .claude/settings.json, the file the hooks are in.
func (Adapter) SandboxFile() string { return ".claude/settings.json" }

// editTools are Claude Code's tools that write files, denied on the
// protected paths by permissions.deny.
var editTools = []string{"Edit", "Write", "MultiEdit", "NotebookEdit"}

// sandboxPath is a protected glob as Claude Code's settings name it:
// "./" before a project-relative glob (relative to where Claude Code
// starts: the project root, as the hooks require), a directory's "/**"
// dropped for the sandbox (the directory itself is denied).
func sandboxPath(glob string, dir bool) string {
	if d, ok := strings.CutSuffix(glob, "/**"); ok && dir && !strings.Contains(d, "*") {
		glob = d
	}
	return "./" + glob
}

// Wants are the settings install --sandbox asks of Claude Code (its
// settings reference, "Sandbox settings" and "Permission settings"):
// the sandbox on, failing when unavailable, with no unsandboxed fallback
// and no automatic approval of sandboxed Bash; the protected paths in
// sandbox.filesystem.denyWrite, the anchor directory in denyRead; and
// permissions.deny for the edit tools on the protected paths.
func Wants(s hosts.Sandbox) []hosts.SandboxWant {
	var write, deny []string
	for _, g := range s.Protected {
		write = append(write, sandboxPath(g, true))
	}
	for _, tool := range editTools {
		for _, g := range s.Protected {
			deny = append(deny, tool+"("+sandboxPath(g, false)+")")
		}
	}
	w := []hosts.SandboxWant{
		{Key: []string{"sandbox", "enabled"}, Value: true},
		{Key: []string{"sandbox", "autoAllowBashIfSandboxed"}, Value: false},
		{Key: []string{"sandbox", "allowUnsandboxedCommands"}, Value: false},
		{Key: []string{"sandbox", "failIfUnavailable"}, Value: true},
		{Key: []string{"sandbox", "filesystem", "denyWrite"}, Items: write},
	}
	if s.Anchor != "" {
		w = append(w, hosts.SandboxWant{Key: []string{"sandbox", "filesystem", "denyRead"}, Items: []string{s.Anchor}})
	}
	return append(w, hosts.SandboxWant{Key: []string{"permissions", "deny"}, Items: deny})
}

// MergeSandbox merges Wants(s) into settings.json (hosts.MergeJSONSandbox:
// a user's stricter value and extra entries stay).
func (Adapter) MergeSandbox(doc []byte, s hosts.Sandbox) ([]byte, []hosts.SandboxEdit, error) {
	return hosts.MergeJSONSandbox(doc, Wants(s))
}

// UnmergeSandbox is hosts.UnmergeJSONSandbox.
func (Adapter) UnmergeSandbox(doc []byte, edits []hosts.SandboxEdit) ([]byte, error) {
	return hosts.UnmergeJSONSandbox(doc, edits)
}

// CheckSandbox is hosts.CheckJSONSandbox.
func (Adapter) CheckSandbox(doc []byte, edits []hosts.SandboxEdit) []string {
	return hosts.CheckJSONSandbox(doc, edits)
}

// SandboxNeeds: on Linux Claude Code's sandbox runs commands under
// bubblewrap (bwrap) and relays their network through socat; without
// either, failIfUnavailable stops every sandboxed command.
func (Adapter) SandboxNeeds() []string {
	if runtime.GOOS == "linux" {
		return []string{"bwrap", "socat"}
	}
	return nil
}

// SandboxNote says what changes for the agent's own loopx calls once
// Claude Code's sandbox is on.
func (Adapter) SandboxNote() string {
	return "with Claude Code's own sandbox on (sandbox.enabled, or hooks install --sandbox), an agent's Bash cannot write .loopx/ nor read loopx's anchor directory: every loopx command it runs that opens the state (round start and finish, evidence add, todo add and claim, gate raise, status, decide, loopx mcp) fails there unless the session runs under `loopx run`, whose broker serves them; loopx's hooks run outside the sandbox and keep answering"
}
