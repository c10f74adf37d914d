package presets

import (
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
)

var want = []string{"auto-research", "ci-sweeper", "daily-triage", "dependency-sweeper", "issue-fix", "pr-watch", "release"}

func TestNames_AreTheSevenPresetsSorted(t *testing.T) {
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
}

func TestSource_KnownAndUnknown(t *testing.T) {
	for _, n := range want {
		if src, ok := Source(n); !ok || len(src) == 0 {
			t.Errorf("Source(%q) missing", n)
		}
	}
	for _, n := range []string{"", "nope", "../presets/issue-fix", "issue-fix.cue", ".", "/issue-fix"} {
		if _, ok := Source(n); ok {
			t.Errorf("Source(%q) found", n)
		}
	}
}

func TestDescribe_EveryPresetHasAHeaderNamingIt(t *testing.T) {
	for _, n := range want {
		d := Describe(n)
		if !strings.HasPrefix(d, n+": ") || len(d) < len(n)+20 {
			t.Errorf("Describe(%q) = %q", n, d)
		}
		src, _ := Source(n)
		if !strings.Contains(string(src), "Sets:") {
			t.Errorf("%s: the header must say what the preset sets", n)
		}
	}
	if Describe("nope") != "" {
		t.Error("Describe of an unknown preset")
	}
}

// A preset is a goal fragment: it compiles on its own and never sets the
// goal's objective (vetting against the schema is tested in package specs).
func TestPresets_CompileAndLeaveObjectiveToTheGoal(t *testing.T) {
	ctx := cuecontext.New()
	for _, n := range want {
		src, _ := Source(n)
		v := ctx.CompileBytes(src, cue.Filename(n+".cue"))
		if err := v.Err(); err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if v.LookupPath(cue.ParsePath("objective")).Exists() {
			t.Errorf("%s sets objective", n)
		}
	}
}
