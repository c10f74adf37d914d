package hosts

import (
	"encoding/json"
	"io"
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
