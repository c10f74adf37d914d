package rulebook

import (
	"slices"
	"testing"

	"github.com/loopx-dev/loopx/policies"
	"github.com/open-policy-agent/opa/v1/ast"
)

// compileSkipping compiles mods with builtinCompiler's stages, minus the
// safety stage when skipSafety, and returns the compiled modules.
func compileSkipping(t *testing.T, mods map[string]string, skipSafety bool) map[string]*ast.Module {
	t.Helper()
	parsed, err := parseAll(mods)
	if err != nil {
		t.Fatal(err)
	}
	skip := slices.DeleteFunc(slices.Clone(tested), func(s ast.StageID) bool { return s == ast.StageCheckSafetyRuleBodies })
	if skipSafety {
		skip = append(skip, ast.StageCheckSafetyRuleBodies)
	}
	c := ast.NewCompiler().WithCapabilities(Capabilities()).WithSkipStages(skip...)
	if c.Compile(parsed); c.Failed() {
		t.Fatal(c.Errors)
	}
	return c.Modules
}

// TestTested_SafetyReordersNothing: the safety stage, besides checking,
// reorders a body whose expressions use a variable before binding it. The
// built-in bundle is written in a safe order, so for every entry rule's
// modules the stage changes nothing and a cold decision skips it (tested);
// a body written out of order fails here (go test ./policies/ still
// checks its safety, with every stage).
func TestTested_SafetyReordersNothing(t *testing.T) {
	if !slices.Contains(tested, ast.StageCheckSafetyRuleBodies) {
		t.Skip("the safety stage runs")
	}
	for _, ref := range policies.Entrypoints() {
		mods, err := builtinModules([]string{ref})
		if err != nil {
			t.Fatal(err)
		}
		with, without := compileSkipping(t, mods, false), compileSkipping(t, mods, true)
		for path, m := range with {
			if !m.Equal(without[path]) {
				t.Errorf("%s: the safety stage reorders %s: write its bodies in the order they bind\nwith:    %v\nwithout: %v", ref, path, m, without[path])
			}
		}
	}
}

// TestTested_SafetyReorderIsSeen: the comparison above sees a reordered
// body (a test that could not fail would prove nothing).
func TestTested_SafetyReorderIsSeen(t *testing.T) {
	mods := map[string]string{"x.rego": "package x\n\np if {\n\tx > 1\n\tx = input.a\n}\n"}
	if compileSkipping(t, mods, false)["x.rego"].Equal(compileSkipping(t, mods, true)["x.rego"]) {
		t.Fatal("a body out of order compiled the same with and without the safety stage")
	}
}
