package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/spf13/cobra"
)

// initOptions are the flags and argument of `loopx init`.
type initOptions struct {
	scaffold.Options
	// dirArg is the DIR argument; "" when none was given.
	dirArg string
}

// validate checks the flags alone (no project opened): the directory is
// DIR, else --project, else "."; --goal, --agent and --preset would change
// an existing spec only with --force.
func (o *initOptions) validate(project string) error {
	o.Dir = "."
	if o.dirArg != "" {
		o.Dir = o.dirArg
	} else if project != "" {
		o.Dir = project
	}
	if spec := filepath.Join(o.Dir, scaffold.SpecDirName, "loopx.cue"); (o.Goal != "" || o.Agent != "") && !o.Force {
		if _, err := os.Stat(spec); err == nil {
			return usagef("%s already exists: --goal, --agent and --preset would change it; edit it, or use --force to overwrite it", spec)
		}
	}
	return nil
}

// runInit scaffolds the project and reports what it wrote.
func (a *app) runInit(_ context.Context, o *initOptions) (err error) {
	if o.Now, err = a.clock(); err != nil {
		return err
	}
	o.StateHome = a.opts.StateHome
	res, err := engine.Init(o.Options) // creates o.Dir once the options are valid
	if err != nil {
		return err
	}
	return a.print(res, func(w io.Writer) {
		if res.Created {
			fmt.Fprintf(w, "wrote %s\n", res.Spec)
		} else {
			fmt.Fprintf(w, "kept %s (use --force to overwrite)\n", res.Spec)
		}
		fmt.Fprintf(w, "state in %s/.loopx/\n", res.Root)
		if res.GitIgnore {
			fmt.Fprintln(w, "added .loopx/ to .gitignore")
		}
	})
}

func (a *app) initCmd() *cobra.Command {
	o := &initOptions{}
	c := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Scaffold loopx/loopx.cue and .loopx/ in a project",
		Long: `Init writes loopx/loopx.cue (unless it exists; --force overwrites), creates the
local state directory .loopx/ with an empty store, and adds .loopx/ to
.gitignore when the directory is inside a git repository. No git is needed.

The store adopts loopx/ as init leaves it (the rules in effect): an edit made
after init that loosens them waits for a human's loopx adopt. A store that
exists keeps its adopted rules (what --force writes is such an edit).

Presets: ` + strings.Join(scaffold.PresetNames(), ", ") + `.`,
		Example: `  loopx init --goal g1 --objective "Ship the v2 API" --agent a1 --host shell
  loopx init --preset pr-watch --goal prs --objective "Keep open PRs green"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.dirArg = args[0]
			}
			if err := o.validate(a.project); err != nil {
				return err
			}
			return a.runInit(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Preset, "preset", "", "unify the goal with this preset")
	f.StringVar(&o.Goal, "goal", "", "id of a first goal")
	f.StringVar(&o.Objective, "objective", "", "the first goal's objective (needed with --goal)")
	f.StringVar(&o.Agent, "agent", "", "id of a first agent")
	f.StringVar(&o.Host, "host", "", "the agent's host: claude-code, codex, cursor, shell, other (default shell)")
	f.BoolVar(&o.Force, "force", false, "overwrite an existing loopx/loopx.cue")
	return c
}
