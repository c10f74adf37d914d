package cli

import (
	"testing"

	"github.com/loopx-dev/loopx/internal/broker/wire"
)

// TestKeyFor_LongSessionsCarryNone: a keyed command goes on in the server
// when its client goes away (its answer is kept for a retry), so a long
// session (watch, mcp) must carry no key, or it would run on for ever
// after its client was interrupted; a command that may change state
// carries a fresh key each time.
func TestKeyFor_LongSessionsCarryNone(t *testing.T) {
	for _, args := range [][]string{
		{"watch", "--goal", "g1", "--agent", "a1"},
		{"mcp"},
		{"run", "--goal", "g1", "--agent", "a1", "--", "true"},
		{"hook", "claude-code", "--event", "PreToolUse"},
	} {
		if k := keyFor(scanArgs(args)); k != "" {
			t.Errorf("loopx %v carries key %q, want none", args, k)
		}
	}
	a, b := keyFor(scanArgs([]string{"todo", "add", "x"})), keyFor(scanArgs([]string{"todo", "add", "x"}))
	if len(a) != wire.KeyLen || a == b {
		t.Errorf("todo add keys %q, %q: want two fresh keys of %d digits", a, b, wire.KeyLen)
	}
}
