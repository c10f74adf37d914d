package early

import "time"

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
