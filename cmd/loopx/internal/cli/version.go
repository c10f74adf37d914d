package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// versionOptions are the flags of `loopx version` (none of its own).
type versionOptions struct{}

// validate checks the flags alone.
func (o *versionOptions) validate() error { return nil }

// runVersion prints loopx's version; it needs no project.
func (a *app) runVersion(_ context.Context, _ *versionOptions) error {
	return a.print(map[string]string{"version": Version}, func(w io.Writer) { fmt.Fprintf(w, "loopx %s\n", Version) })
}

func (a *app) versionCmd() *cobra.Command {
	o := &versionOptions{}
	return &cobra.Command{
		Use:     "version",
		Short:   "Print loopx's version",
		Example: "  loopx version --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runVersion(cmd.Context(), o)
		},
	}
}
