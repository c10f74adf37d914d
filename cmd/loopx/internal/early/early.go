package early

import (
	"time"

	"github.com/loopx-dev/loopx/internal/serveclient"
)

// ForwardTimeout bounds a forwarded command (but for a person typing at a
// prompt); a hook's is its own deadline plus a margin under the host's.
const ForwardTimeout = 5 * time.Minute

// TestForwardTimeoutEnv names, in a test build only, a duration that
// replaces a forwarded command's timeout (cmd/loopx/internal/cli): early
// leaves a command to the program whenever it is set.
const TestForwardTimeoutEnv = "LOOPX_TEST_FORWARD_TIMEOUT"

// ChildCommand is the hidden command the budgeted spec evaluator runs as
// (specs.ChildCommand, which early may not import: it is heavy).
const ChildCommand = "__spec-eval"

// ExitInternal is loopx's exit code of an internal error (a server that
// did not answer).
const ExitInternal = 3

// HookDeadline is one hook's whole budget (internal/frontend/hook.Deadline,
// which early may not import); HookMargin is what a forwarded hook waits
// for the server past it, before it answers by itself.
const (
	HookDeadline = 8 * time.Second
	HookMargin   = 700 * time.Millisecond
)

// MaxPayload bounds a hook's payload as read (engine/hosts.MaxPayload).
const MaxPayload = 64 << 20

// Hook is a hook early sent to the server (it dialled it, read the
// payload and sent both) whose answer did not come (nil: none): the
// program answers for it (blocked or a warning) from the payload, without
// reading standard input again nor sending it again.
var Hook *HookCall

// HookCall is a hook early forwarded without an answer (Hook).
type HookCall struct {
	// Payload is the hook's standard input as read (at most MaxPayload+1
	// bytes).
	Payload []byte
	// Record is the server it was sent to; Timeout bounded the call.
	Record  serveclient.Record
	Timeout time.Duration
	// Err is why there is no answer.
	Err error
}
