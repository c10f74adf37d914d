package hosts

import (
	"encoding/json"
	"fmt"
	"io"
)

// PermissionAnswer is PreToolUse's answer: hookSpecificOutput with
// permissionDecision "allow", "deny" or "ask" and its reason (shown to the
// model on deny, to the user on ask).
type PermissionAnswer struct {
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

// WritePermission writes PreToolUse's answer. verdict must be "allow",
// "deny" or "ask" (a loopx permission verdict); anything else is an error
// and writes nothing, so that the caller fails closed (exit 2).
func WritePermission(w io.Writer, verdict, reason string) error {
	switch verdict {
	case "allow", "deny", "ask":
	default:
		return fmt.Errorf("no PreToolUse answer for verdict %q", verdict)
	}
	return write(w, PermissionAnswer{PermissionOutput{PreToolUse, verdict, reason}})
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
