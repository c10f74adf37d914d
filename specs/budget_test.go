package specs

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLoadCached_BudgetOnlyOnMiss: with a budget whose child cannot even
// start, a spec already in the cache still loads (the hot path spawns no
// child), and a spec not in the cache fails closed with budget_exceeded
// naming its file — remembered, so the next load fails without a child.
func TestLoadCached_BudgetOnlyOnMiss(t *testing.T) {
	dir := writeSpec(t, map[string]string{"loopx.cue": "goals: g1: objective: \"Ship the v2 API\"\n"})
	cache := filepath.Join(t.TempDir(), "cache")
	if _, err := LoadCached(dir, cache); err != nil { // in-process: fills the cache
		t.Fatal(err)
	}
	SetBudget(&Budget{Exe: filepath.Join(t.TempDir(), "no-such-loopx"), Arg0: "loopx", Memory: 64 << 20, Timeout: time.Second})
	defer SetBudget(nil)
	if _, err := LoadCached(dir, cache); err != nil {
		t.Fatalf("cached spec under a budget: %v", err)
	}
	other := writeSpec(t, map[string]string{"loopx.cue": "goals: g2: objective: \"Keep the docs current\"\n"})
	for i := 0; i < 2; i++ {
		_, err := LoadCached(other, cache)
		if !IsBudget(err) || !strings.HasPrefix(err.Error(), "loopx/loopx.cue:1:1: ") {
			t.Fatalf("load %d of a spec not in the cache: %v, want budget_exceeded at loopx/loopx.cue", i, err)
		}
	}
	// A larger budget than the one blown tries again (and fails again here).
	SetBudget(&Budget{Exe: "", Arg0: "loopx", Memory: 128 << 20, Timeout: time.Second})
	if _, err := LoadCached(other, cache); !IsBudget(err) || !strings.Contains(err.Error(), "child process") {
		t.Fatalf("with a larger budget: %v, want a new attempt", err)
	}
}

func TestBudgetFromEnv_OnlyLowers(t *testing.T) {
	for _, c := range []struct {
		mem, timeout string
		wantMem      int64
		wantTimeout  time.Duration
	}{
		{"", "", DefaultMemoryBudget, DefaultTimeBudget},
		{"64", "1s", 64 << 20, time.Second},
		{"100000", "1h", DefaultMemoryBudget, DefaultTimeBudget},
		{"lots", "-1s", DefaultMemoryBudget, DefaultTimeBudget},
	} {
		t.Setenv("LOOPX_SPEC_MEMORY_MB", c.mem)
		t.Setenv("LOOPX_SPEC_TIMEOUT", c.timeout)
		b := BudgetFromEnv()
		if b.Memory != c.wantMem || b.Timeout != c.wantTimeout {
			t.Errorf("%q, %q: %d, %s; want %d, %s", c.mem, c.timeout, b.Memory, b.Timeout, c.wantMem, c.wantTimeout)
		}
	}
}

// A budgeted child that crashed on its address-space limit: the runtime
// says "out of memory", or dies of SIGSEGV/SIGBUS when the allocation that
// failed was its own (a stack); any other failure is not the budget.
func TestOutOfAddressSpace(t *testing.T) {
	for _, c := range []struct {
		stderr string
		want   bool
	}{
		{"fatal error: runtime: out of memory", true},
		{"runtime: mmap: cannot allocate memory", true},
		{"SIGSEGV: segmentation violation\nPC=0x0 m=3 sigcode=1", true},
		{"unexpected signal during runtime execution\n[signal SIGBUS: bus error", true},
		{"loopx __spec-eval: a request on stdin: EOF", false},
		{"", false},
	} {
		if got := outOfAddressSpace(c.stderr); got != c.want {
			t.Errorf("outOfAddressSpace(%q) = %v, want %v", c.stderr, got, c.want)
		}
	}
}
