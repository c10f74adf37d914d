// Package claudecode is the Claude Code host: its hook protocol (the
// payload, the answers it honours), .claude/settings.json, the program it
// runs as.
package claudecode

import "github.com/loopx-dev/loopx/engine/hosts"

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
