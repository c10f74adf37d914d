package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/output"
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/presets"
	"github.com/spf13/cobra"
)

// presetInfo is one preset in `loopx preset list|show --json`.
type presetInfo struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Source      string            `json:"source,omitempty"`
	Settings    []presets.Setting `json:"settings,omitempty"`
}

func presetDescription(name string) string {
	return strings.TrimPrefix(presets.Describe(name), name+": ")
}

func (a *app) presetCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "preset",
		Short: "List the embedded presets and show what one sets",
		Long: `Presets are reusable goal fragments (CUE) embedded in loopx. A goal names one
with preset: "NAME" (or loopx init --preset NAME); the goal's own fields
refine the preset's defaults, and a conflict with a fixed value is an error
at its position.`,
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the presets: name and what each is for",
		Example: `  loopx preset list
  loopx preset list --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := []presetInfo{}
			for _, n := range presets.Names() {
				out = append(out, presetInfo{Name: n, Description: presetDescription(n)})
			}
			return a.print(out, func(w io.Writer) {
				rows := make([][]string, len(out))
				for i, p := range out {
					rows[i] = []string{p.Name, p.Description}
				}
				output.Table(w, []string{"NAME", "DESCRIPTION"}, rows)
			})
		},
	}
	show := &cobra.Command{
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
			name := args[0]
			src, ok := presets.Source(name)
			if !ok {
				return engine.Usagef("unknown_preset", "unknown preset %q (known: %s)", name, strings.Join(presets.Names(), ", "))
			}
			settings, err := presets.Settings(name)
			if err != nil {
				return err
			}
			p := presetInfo{Name: name, Description: presetDescription(name), Source: string(src), Settings: settings}
			return a.print(p, func(w io.Writer) { renderPreset(w, p) })
		},
	}
	c.AddCommand(list, show)
	return c
}

func renderPreset(w io.Writer, p presetInfo) {
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
