package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/internal/frontend/demo"
	"github.com/spf13/cobra"
)

// demoOptions are the flags of `loopx demo`.
type demoOptions struct {
	dir string
}

// validate checks the flags alone: --dir, when given, is new or empty,
// and a directory (or can be made one).
func (o *demoOptions) validate() error {
	if o.dir == "" {
		return nil
	}
	if err := checkDirPath("--dir", o.dir); err != nil {
		return err
	}
	if entries, err := os.ReadDir(o.dir); err == nil && len(entries) > 0 {
		return usagef("demo --dir %s: the directory is not empty; the demo only runs in a new or empty directory", o.dir)
	}
	return nil
}

func (a *app) demoCmd() *cobra.Command {
	o := &demoOptions{}
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run a governed loop end to end in a fresh temporary project",
		Long: `Demo creates a project in a new temporary directory, declares a shell agent
and a goal with a 3-round quota, adds todos, and runs a real shell agent with
'loopx run'. The agent edits files, runs a check and records evidence; on its
second round it raises a gate, and the loop stops (wait_human). The demo
answers the gate as the human, and the loop runs again until the quota stops
it (skip, quota_exhausted). It prints every decision with its reasons and,
at the end, the directory to inspect with 'loopx status --project DIR'.`,
		Example: "  loopx demo\n  go run ./cmd/loopx demo",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runDemo(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.dir, "dir", "", "use this (new or empty) directory instead of a temporary one")
	return c
}

// runDemo runs the demo in --dir or a new temporary directory: the
// narration goes to stdout (stderr under --json, whose one document is the
// final status).
func (a *app) runDemo(ctx context.Context, o *demoOptions) (err error) {
	w := a.stderr
	if !a.json {
		w = a.stdout
	}
	dir := o.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "loopx-demo-"); err != nil {
			return err
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	now, err := a.clock()
	if err != nil {
		return err
	}
	res, err := demo.Run(ctx, demo.Options{Dir: dir, Now: now, Exe: exe, Out: w,
		OnDecision: func(d decision.Decision) { renderDecision(w, d, false) }})
	if err != nil {
		return err
	}
	if a.json {
		return a.print(map[string]any{"dir": res.Dir, "status": res.Status}, nil)
	}
	fmt.Fprintln(a.stdout, res.Dir)
	return nil
}
