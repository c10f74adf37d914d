package cli

import (
	"context"

	"github.com/loopx-dev/loopx/specs"
	"github.com/spf13/cobra"
)

// schemaDoc is `loopx schema --json`: the schema's file name in the loopx
// source tree and its CUE source.
type schemaDoc struct {
	File   string `json:"file"`
	Source string `json:"source"`
}

// schemaOptions are the flags of `loopx schema` (none of its own).
type schemaOptions struct{}

// validate checks the flags alone.
func (o *schemaOptions) validate() error { return nil }

// runSchema prints the embedded CUE schema (specs.SchemaSource); it needs
// no project.
func (a *app) runSchema(_ context.Context, _ *schemaOptions) error {
	src := specs.SchemaSource()
	if a.json {
		return a.print(schemaDoc{File: specs.SchemaFile, Source: string(src)}, nil)
	}
	_, err := a.stdout.Write(src)
	return err
}

func (a *app) schemaCmd() *cobra.Command {
	o := &schemaOptions{}
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the CUE schema every spec is unified with",
		Long: `Schema prints the CUE schema built into loopx (specs/schema.cue): the
definitions #Spec, #Goal, #Gate, #Duration, #Question, … that every
loopx/*.cue file is unified with. It needs no project.

The output is a file the cue tool (go install cuelang.org/go/cmd/cue@v0.17.1)
can vet a spec with: spec files without a package clause (as loopx init
writes them) or with "package loopx" join its package, and its last line
makes every top-level field a field of #Spec, so an unknown field, a
malformed duration or a vague gate question is an error at its
file:line:col:

  loopx schema | cue vet -c cue: - loopx/*.cue

loopx vet checks more than the schema: presets, ids, gate options, a
monitor's every, the range of durations, the user policies.

Exit codes: 0 printed.`,
		Example: `  loopx schema > loopx-schema.cue
  loopx schema | cue vet -c cue: - loopx/*.cue
  loopx schema --json | jq -r .source`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runSchema(cmd.Context(), o)
		},
	}
}
