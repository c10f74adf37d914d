// Package codex is the Codex host: its hook protocol (Claude Code's
// payload and settings shape, but only deny or nothing as answers),
// .codex/hooks.json, the program it runs as.
package codex

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/engine/hosts"
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
