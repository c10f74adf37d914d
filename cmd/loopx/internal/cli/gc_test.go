package cli

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/gchold"
)

// Main starts from the default pace after gchold held collection while
// the packages initialised: a command that sets no pace of its own (a
// forwarded client, the spec evaluator) collects as any Go program.
func TestMain_RestoresTheDefaultPace(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	was := debug.SetGCPercent(100)
	wasLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(was); debug.SetMemoryLimit(wasLimit) })

	gchold.HoldCollection()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("HoldCollection left GOGC at %d, want -1 (off)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != gchold.InitHeap {
		t.Fatalf("HoldCollection set the memory limit %d, want %d", l, gchold.InitHeap)
	}
	defaultGC()
	if p := debug.SetGCPercent(-1); p != 100 {
		t.Errorf("defaultGC left GOGC at %d, want 100", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("defaultGC left the memory limit at %d, want none", l)
	}
}
