package scaffold

import "testing"

// TestLoopxWrites: the files loopx writes itself under .loopx/ are left to
// their own checks; anything else there is compared by content.
func TestLoopxWrites(t *testing.T) {
	for rel, want := range map[string]bool{
		".loopx/state.db":                 true,
		".loopx/state.lock":               true,
		".loopx/events.log.1":             true,
		".loopx/decisions.jsonl":          true,
		".loopx/inputs/ab/cd.json":        true,
		".loopx/spool/deny-1.json":        true,
		".loopx/rounds/r-1/prompt.md":     true,
		".loopx/cache/readmodel.json":     true,
		".loopx/cache/.spec-1.json.tmp42": true,
		".loopx/cache/spec-abc.json":      false,
		".loopx/hooks.json":               false,
		".loopx/instance":                 false,
		".loopx/rounds.txt":               false,
		".loopx/sub/state.db":             false,
		".loopx/agent-added.sh":           false,
		".loopx/inputs-not-a-dir/x.json":  false,
	} {
		if got := LoopxWrites(rel); got != want {
			t.Errorf("LoopxWrites(%q) = %v, want %v", rel, got, want)
		}
	}
}
