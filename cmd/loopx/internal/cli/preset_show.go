package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/output"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/spf13/cobra"
)

// presetShowOptions are the argument of `loopx preset show`.
type presetShowOptions struct {
	name string
}

// validate checks the argument alone.
func (o *presetShowOptions) validate() error { return nil }

// runPresetShow prints a preset's source and settings
// (scaffold.LookupPreset); it needs no project.
func (a *app) runPresetShow(_ context.Context, o *presetShowOptions) error {
	p, err := scaffold.LookupPreset(o.name)
	if err != nil {
		return err
	}
	return a.print(p, func(w io.Writer) { renderPreset(w, p) })
}

func (a *app) presetShowCmd() *cobra.Command {
	o := &presetShowOptions{}
	return &cobra.Command{
		Use:   "show NAME",
		Short: "Show a preset's CUE source and the goal fields it sets",
		Long: `Show prints the preset's CUE source, then each goal field it sets with the
value a goal gets when it does not set the field itself: "default" values
are replaced by the goal's own, "fixed" ones must be agreed with; a
constraint says what a goal's own value must satisfy.

Exit codes: 0 shown; 2 unknown preset (the known ones are listed).`,
		Example: `  loopx preset show release
  loopx preset show issue-fix --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.name = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runPresetShow(cmd.Context(), o)
		},
	}
}

func renderPreset(w io.Writer, p scaffold.Preset) {
	fmt.Fprintf(w, "preset %s: %s\n\n", p.Name, p.Description)
	fmt.Fprintf(w, "--- presets/%s.cue\n%s", p.Name, p.Source)
	if !strings.HasSuffix(p.Source, "\n") {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "---\n\nsets (a goal's own field replaces a default; a fixed value must be agreed with):\n")
	rows := make([][]string, 0, len(p.Settings))
	for _, s := range p.Settings {
		kind := "fixed"
		if s.Default {
			kind = "default"
		}
		if s.Constraint != "" {
			kind += ", goal's own must be " + s.Constraint
		}
		rows = append(rows, []string{"  " + s.Path, string(s.Value), kind})
	}
	output.Table(w, []string{"  FIELD", "VALUE", "KIND"}, rows)
}
