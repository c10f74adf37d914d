// Package cuevet proves docs/specs.md's recipe for vetting a spec with the real cue
// tool: `loopx schema | cue vet -c cue: - loopx/*.cue`. Its scripts run
// loopx and cue (cuelang.org/go/cmd/cue at the version go.mod pins, run in
// process) through a real shell pipe.
package cuevet

import (
	"os"
	"testing"

	cuecmd "cuelang.org/go/cmd/cue/cmd"
	"github.com/loopx-dev/loopx/cmd/loopx/internal/cli"
	"github.com/loopx-dev/loopx/internal/anchor/anchortest"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(anchortest.M{M: m}, map[string]func(){
		"loopx": func() { os.Exit(cli.Main()) },
		"cue":   func() { os.Exit(cuecmd.Main()) },
	})
}

// TestCueVetRecipe runs testdata/*.txtar.
func TestCueVetRecipe(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// Pin cue: no experiments or debug flags from the environment,
			// no registry (the recipe needs no module).
			env.Setenv("CUE_EXPERIMENT", "")
			env.Setenv("CUE_DEBUG", "")
			env.Setenv("CUE_REGISTRY", "none")
			env.Setenv("LOOPX_PROJECT", "")
			return nil
		},
	})
}
