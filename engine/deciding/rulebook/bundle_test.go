package rulebook

import (
	"slices"
	"testing"

	"github.com/loopx-dev/loopx/policies"
)

func TestPolicyBundle(t *testing.T) {
	user := []Module{{Path: "loopx/policies/a.rego", Source: "package loopx.user.should_run\n"}, {Path: "loopx/policies/a_test.rego", Source: "package x\n", Test: true}}
	for _, tc := range []struct {
		name     string
		rev      string
		withUser bool
	}{{"the user policies' revision", Hash(user), true}, {"another revision", "sha256:other", false}} {
		files, roots := PolicyBundle(user, tc.rev)
		if len(files) != len(policies.Modules())+map[bool]int{true: 1, false: 0}[tc.withUser] {
			t.Errorf("%s: %d files", tc.name, len(files))
		}
		if _, ok := files["loopx/policies/a_test.rego"]; ok {
			t.Errorf("%s: a test in the bundle", tc.name)
		}
		if !slices.IsSorted(roots) || !slices.Contains(roots, "loopx/user") || slices.Contains(roots, "loopx/spec") {
			t.Errorf("%s: roots %v", tc.name, roots)
		}
	}
}
