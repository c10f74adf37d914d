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
		Use:   "version",
		Short: "Print loopx's version",
		Long: `Print loopx's version (the same as loopx --version): the version linked in
at build time, else the module version the Go build information records (a
tagged release, or the pseudo-version Go stamps from git, "+dirty" when the
work tree had changes), else "dev (REVISION)" or "dev (REVISION, modified)"
from the recorded git revision, else "dev".`,
		Example: "  loopx version\n  loopx --version\n  loopx version --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runVersion(cmd.Context(), o)
		},
	}
}
