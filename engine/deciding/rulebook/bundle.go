package rulebook

import (
	"maps"
	"path"
	"path/filepath"
	"slices"

	"github.com/loopx-dev/loopx/policies"
)

// PolicyBundle is the policy bundle a decision of policy revision rev
// names in the decision log: every built-in module (all areas) and the
// user policies (their tests left out) when user is that revision (else
// the built-in modules alone), with the bundle's roots, sorted, which
// leave loopx/spec to the spec bundle.
func PolicyBundle(user []Module, rev string) (map[string][]byte, []string) {
	if Hash(user) != rev {
		user = nil
	}
	out := map[string][]byte{}
	roots := map[string]bool{"loopx/user": true}
	for p, src := range policies.Modules() {
		out[p] = []byte(src)
		roots[path.Dir(p)] = true
	}
	for _, m := range user {
		if !m.Test {
			out[filepath.ToSlash(m.Path)] = []byte(m.Source)
		}
	}
	return out, slices.Sorted(maps.Keys(roots))
}
