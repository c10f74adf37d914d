package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/kernel"
)

// TestRemedies_EveryKernelHint: every remedy the kernel's refusals name
// is worded here, and nothing else is: a new refusal cannot reach a person
// without saying what to do.
func TestRemedies_EveryKernelHint(t *testing.T) {
	for _, k := range kernel.Hints {
		if strings.TrimSpace(remedies[k]) == "" {
			t.Errorf("the kernel's hint %q has no remedy", k)
		}
	}
	for k := range remedies {
		if !slices.Contains(kernel.Hints, k) {
			t.Errorf("remedy %q is no hint of the kernel's", k)
		}
	}
}
