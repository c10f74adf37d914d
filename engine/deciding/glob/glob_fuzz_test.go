package glob

import (
	"strings"
	"testing"
)

// FuzzOverlap: Validate and Overlap never panic on a --scope glob; a bad
// glob's error names it; Overlap is symmetric on valid globs (a claim's
// conflict does not depend on which todo asks first), and "**" overlaps
// every valid glob.
func FuzzOverlap(f *testing.F) {
	for _, s := range [][2]string{{"docs/**", "docs/a.md"}, {"a/[bc].md", "a/[cd].md"}, {"src/{a,b}/x", "src/c/*"},
		{"*a*b*", "*b*a*"}, {`a\*b`, "a*"}, {"**/*.go", "docs/**/*.md"}, {"a/[!b].md", "a/b.md"}, {"x*y", "*z"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		errA, errB := Validate([]string{a}), Validate([]string{b})
		if errA != nil && !strings.Contains(errA.Error(), "--scope ") {
			t.Fatalf("%q: error %q does not name the scope", a, errA)
		}
		if errA != nil || errB != nil {
			return
		}
		_, _, ab := Overlap([]string{a}, []string{b})
		_, _, ba := Overlap([]string{b}, []string{a})
		if ab != ba {
			t.Fatalf("Overlap(%q, %q) = %v but Overlap(%q, %q) = %v", a, b, ab, b, a, ba)
		}
		if _, _, all := Overlap([]string{"**"}, []string{a}); !all {
			t.Fatalf(`"**" does not overlap %q`, a)
		}
	})
}
