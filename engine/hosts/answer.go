package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// PermissionReply is PreToolUse's answer: hookSpecificOutput with
// permissionDecision "allow", "deny" or "ask" and its reason (shown to the
// model on deny, to the user on ask).
type PermissionReply struct {
	// HookSpecificOutput carries the decision.
	HookSpecificOutput PermissionOutput `json:"hookSpecificOutput"`
}

// PermissionOutput is PermissionAnswer's hookSpecificOutput.
type PermissionOutput struct {
	// HookEventName is always "PreToolUse".
	HookEventName string `json:"hookEventName"`
	// PermissionDecision is "allow", "deny" or "ask"; PermissionDecisionReason says why.
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// StopAnswer is Stop's (and SubagentStop's) blocking answer: decision
// "block" keeps the agent working, Reason is its next instruction. Letting
// the agent stop is no output at all.
type StopAnswer struct {
	// Decision is always "block".
	Decision string `json:"decision"`
	// Reason is the agent's next instruction.
	Reason string `json:"reason"`
}

// ContextAnswer is SessionStart's answer: AdditionalContext is added to the
// session's context.
type ContextAnswer struct {
	// HookSpecificOutput carries the context.
	HookSpecificOutput ContextOutput `json:"hookSpecificOutput"`
}

// ContextOutput is ContextAnswer's hookSpecificOutput.
type ContextOutput struct {
	// HookEventName is always "SessionStart".
	HookEventName string `json:"hookEventName"`
	// AdditionalContext is text added to the session's context.
	AdditionalContext string `json:"additionalContext"`
}

// Host names (`loopx hook HOST`, `loopx hooks install --host HOST`).
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
)

// Hosts are the agent hosts loopx answers, in the order help lists them.
var Hosts = []string{ClaudeCode, Codex}

// KnownHost reports whether host is one of Hosts.
func KnownHost(host string) bool { return host == ClaudeCode || host == Codex }

// CanAsk reports whether host honours a PreToolUse "ask" (prompts its user).
// Claude Code does; Codex marks an ask "unsupported", fails the hook run
// and lets the call proceed, so loopx answers deny there instead.
func CanAsk(host string) bool { return host == ClaudeCode }

// Blocks reports whether loopx's answer to verdict blocks the tool call on
// host: deny everywhere, and ask where the host cannot ask (Codex). Such an
// answer is a denial and is audited like one.
func Blocks(host, verdict string) bool {
	return verdict == "deny" || (verdict == "ask" && !CanAsk(host))
}

// PermissionAnswer returns what `loopx hook HOST` prints for a permission
// verdict (allow, defer, ask or deny): one JSON line, or nothing (nil)
// when the host's own permission flow decides. The exit code is 0 in every
// case. reason explains the verdict (shown to the model on deny, to the
// user on ask); goal names the goal and codes are the decision's reason
// codes, from which a Codex ask says what a human must do (CodexAskNote).
//
//	verdict   claude-code                 codex
//	allow     permissionDecision "allow"  no output
//	defer     no output                   no output
//	ask       permissionDecision "ask"    permissionDecision "deny" + what a human must do
//	deny      permissionDecision "deny"   permissionDecision "deny"
//
// Claude Code's allow skips its user's prompt, so the policy answers allow
// only for an explicit spec grant. Codex honours only deny (with a
// non-empty permissionDecisionReason) and exit 2; its allow without
// updatedInput and its ask are "unsupported" and let the call proceed. An
// unknown host or verdict is an error (the caller fails closed: exit 2).
func PermissionAnswer(host, verdict, reason, goal string, codes []string) ([]byte, error) {
	if !KnownHost(host) {
		return nil, fmt.Errorf("unknown host %q (want claude-code or codex)", host)
	}
	switch verdict {
	case "allow", "defer", "ask", "deny":
	default:
		return nil, fmt.Errorf("no PreToolUse answer for verdict %q", verdict)
	}
	if strings.TrimSpace(reason) == "" {
		reason = "loopx " + verdict
	}
	decision := verdict
	switch {
	case verdict == "defer":
		return nil, nil
	case host == Codex && verdict == "allow":
		return nil, nil
	case host == Codex && verdict == "ask":
		decision = "deny"
		reason += ". " + CodexAskNote(goal, codes)
	}
	var b bytes.Buffer
	err := write(&b, PermissionReply{PermissionOutput{PreToolUse, decision, reason}})
	return b.Bytes(), err
}

// askAdvice says, per reason code of an ask, what lets the call happen.
// A grant never overrides an ask (the policy's objections come first), so
// none of them suggests one; an opaque line can never be allowed at all.
var askAdvice = []struct{ code, advice string }{
	{"command_opaque", "loopx cannot read this command line, so no spec setting allows it: a human must run it themselves, or the agent may rewrite it so that loopx can read it (plain commands: no $(…), eval, `| sh`, inline -c/-e code)"},
	{"command_ask", "The spec asks a human for it (goals.%s.scope.commands.ask): a human must run it themselves, or take the pattern out of scope.commands.ask; then the agent may retry"},
	{"command_not_allowed", "It matches no pattern of goals.%s.scope.commands.allow: a human must run it themselves, or add a matching pattern there; then the agent may retry"},
}

// CodexAskNote ends the reason of an ask that loopx turns into a deny on
// Codex: what a human must do for the call to happen, by the decision's
// reason codes (askAdvice; "" goal: "<goal>"). Without a known code: a
// human must run it themselves.
func CodexAskNote(goal string, codes []string) string {
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

// WarningAnswer is the answer to a Stop, SubagentStop or SessionStart
// event that loopx could not decide: only a systemMessage, which both hosts
// show their user as a warning, and no decision (the agent is never kept
// working, and nothing is added to its context, because of loopx's own
// error).
type WarningAnswer struct {
	// SystemMessage is the warning shown to the user.
	SystemMessage string `json:"systemMessage"`
}

// WriteWarning writes a WarningAnswer with msg.
func WriteWarning(w io.Writer, msg string) error {
	return write(w, WarningAnswer{SystemMessage: msg})
}

// WriteStopBlock writes Stop's blocking answer with reason.
func WriteStopBlock(w io.Writer, reason string) error {
	return write(w, StopAnswer{Decision: "block", Reason: reason})
}

// WriteContext writes SessionStart's answer with text as additionalContext.
func WriteContext(w io.Writer, text string) error {
	return write(w, ContextAnswer{ContextOutput{SessionStart, text}})
}

// write prints v as one line of JSON (no HTML escaping).
func write(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
