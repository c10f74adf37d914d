package cli

import (
	"context"
	"io"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/output"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/spf13/cobra"
)

func (a *app) presetCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "preset",
		Short: "List the embedded presets and show what one sets",
		Long: `Presets are reusable goal fragments (CUE) embedded in loopx. A goal names one
with preset: "NAME" (or loopx init --preset NAME); the goal's own fields
refine the preset's defaults, and a conflict with a fixed value is an error
at its position.`,
	}
	c.AddCommand(a.presetListCmd(), a.presetShowCmd())
	return c
}

// presetListOptions are the flags of `loopx preset list` (none of its
// own).
type presetListOptions struct{}

// validate checks the flags alone.
func (o *presetListOptions) validate() error { return nil }

// runPresetList lists the embedded presets (scaffold.Presets); it needs no
// project.
func (a *app) runPresetList(_ context.Context, _ *presetListOptions) error {
	out := scaffold.Presets()
	return a.print(out, func(w io.Writer) {
		rows := make([][]string, len(out))
		for i, p := range out {
			rows[i] = []string{p.Name, p.Description}
		}
		output.Table(w, []string{"NAME", "DESCRIPTION"}, rows)
	})
}

func (a *app) presetListCmd() *cobra.Command {
	o := &presetListOptions{}
	return &cobra.Command{
		Use:   "list",
		Short: "List the presets: name and what each is for",
		Example: `  loopx preset list
  loopx preset list --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runPresetList(cmd.Context(), o)
		},
	}
}
