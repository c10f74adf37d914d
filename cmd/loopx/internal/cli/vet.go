package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// vetOptions are the flags of `loopx vet` (none of its own).
type vetOptions struct{}

// validate checks the flags alone (no project opened).
func (o *vetOptions) validate() error { return nil }

// runVet validates loopx/ as it is on disk (engine.Vet) and reports it.
func (a *app) runVet(_ context.Context, _ *vetOptions) error {
	e, err := a.diskEngine()
	if err != nil {
		return err
	}
	rep, err := e.Vet()
	if err != nil {
		return err
	}
	return a.print(map[string]any{"ok": true, "files": rep.Files, "hash": rep.Hash, "goals": rep.GoalIDs}, func(w io.Writer) {
		fmt.Fprintf(w, "ok: %d file(s), %d goal(s)\n", len(rep.Files), rep.SpecGoals)
	})
}

func (a *app) vetCmd() *cobra.Command {
	o := &vetOptions{}
	return &cobra.Command{
		Use:   "vet",
		Short: "Validate the spec (loopx/*.cue) and compile the user policies",
		Long: `Vet unifies every loopx/*.cue file with the embedded schema and reports every
error with file:line:col and the field path, then compiles the user policies
(loopx/policies/*.rego) with the built-in bundle and reports their errors the
same way: syntax and compile errors, a reference to a field the query's input
or the spec does not have (input.permission.comand; see loopx policy schema),
a built-in policies may not call (http.send, time.now_ns, …). Exit 0 when
valid, 2 otherwise. (loopx check does all of this and
more: lint rules, policy tests, the publication scan.)`,
		Example: `  loopx vet
  loopx vet --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runVet(cmd.Context(), o)
		},
	}
}
