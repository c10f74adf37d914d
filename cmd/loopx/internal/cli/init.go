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
	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/frontend/gateanswer"
	"github.com/loopx-dev/loopx/internal/frontend/serve"
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
	name := "init DIR"
	if o.dirArg == "" {
		name = "--project"
	}
	if err := checkDirPath(name, o.Dir); err != nil {
		return err
	}
	if spec := filepath.Join(o.Dir, scaffold.SpecDirName, "loopx.cue"); (o.Goal != "" || o.Agent != "") && !o.Force {
		if _, err := os.Stat(spec); err == nil {
			return usagef("%s already exists: --goal, --agent and --preset would change it; edit it, or use --force to overwrite it", spec)
		}
	}
	return nil
}

// runInit scaffolds the project and reports what it wrote.
func (a *app) runInit(ctx context.Context, o *initOptions) (err error) {
	if o.Now, err = a.clock(); err != nil {
		return err
	}
	o.StateHome = a.opts.StateHome
	if err := a.refuseWhileServed(o.Dir); err != nil {
		return err
	}
	stateBefore := exists(filepath.Join(o.Dir, scaffold.StateDirName))
	res, err := engine.Init(o.Options) // creates o.Dir once the options are valid
	if storeGone(err) {
		// The path held a project whose anchor remembers its chain, and its
		// .loopx/ is gone (the directory deleted, the repository cloned
		// again): a human may start a new chain here.
		if err := a.startOver(ctx, o, err); err != nil {
			// Refused: leave the path as it was, so that the same init,
			// run again by a human at a terminal, does what it says.
			undoInit(res, o.Dir, stateBefore)
			return err
		}
		created := res.Created
		res, err = engine.Init(o.Options)
		res.Created = res.Created || created // this init wrote it, before starting over
	}
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

// refuseWhileServed refuses init in dir while a loopx server runs for the
// project there (a usage error, exit 2, naming it): the server holds the
// project's store, and init would rewrite the spec files (--force) before
// failing on the store's lock half a minute later.
func (a *app) refuseWhileServed(dir string) error {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	var ad string
	if a.opts.StateHome != "" {
		ad, err = anchor.DirIn(a.opts.StateHome, root)
	} else {
		ad, err = anchor.Dir(root)
	}
	if err != nil {
		return nil // no such directory yet: no server either
	}
	if r, ok := serve.Lookup(ad); ok {
		return usagef("a loopx server runs for %s (pid %d): stop it first (`loopx serve stop`), then run init", root, r.PID)
	}
	return nil
}

// exists reports whether path names something (a link included).
// checkDirPath is the usage error (exit 2, naming the argument or flag
// name) for a directory path that cannot be a directory: the path, or
// the nearest of its parents that exists, is not a directory (a file).
// A path that does not exist yet under a directory passes: it is made.
func checkDirPath(name, dir string) error {
	for p := filepath.Clean(dir); ; {
		fi, err := os.Stat(p)
		if err == nil {
			if fi.IsDir() {
				return nil
			}
			if p == filepath.Clean(dir) {
				return usagef("%s %s: not a directory (it is a file)", name, dir)
			}
			return usagef("%s %s: %s is a file, not a directory", name, dir, p)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// undoInit takes back what an init refused before its store opened wrote
// at dir: the spec it created (res.Created) and loopx/ when that is left
// empty, and .loopx/ when it was not there before (stateBefore false).
func undoInit(res scaffold.Result, dir string, stateBefore bool) {
	if res.Created && res.Spec != "" {
		_ = os.Remove(res.Spec)
		_ = os.Remove(filepath.Dir(res.Spec)) // only when empty
	}
	if !stateBefore {
		_ = os.RemoveAll(filepath.Join(dir, scaffold.StateDirName))
	}
}

// storeGone reports whether err is the store's refusal of a project whose
// state.db is missing while its anchor remembers a chain (found
// store_missing).
func storeGone(err error) bool {
	e := errs.As(err)
	if e == nil {
		return false
	}
	data, _ := e.Data.(map[string]any)
	found, _ := data["found"].(string)
	return found == "store_missing"
}

// startOver asks a human to start a new chain at o.Dir, whose anchor
// remembers the chain that err names: data.loopx.repair.start_over (a
// human, not from an agent or a round; at a terminal "start over" typed
// back after reading what the old chain reached), then opens the store
// accepting that it is gone, which records the abandoned chain (revision,
// head) in the new chain's first event (store.accepted). Errors: errs.No
// refusals (exit 1, audited as store.start_over_refused), the store's.
func (a *app) startOver(ctx context.Context, o *initOptions, gone error) error {
	root, err := filepath.Abs(o.Dir)
	if err != nil {
		return err
	}
	e := engine.New(engine.Options{Root: root, Now: o.Now, StateHome: a.opts.StateHome, Ancestry: a.ancestry(), Resident: a.opts.Resident})
	defer e.Close()
	prompt := "loopx init: " + root + " held a loopx project before, and its state (.loopx/) is gone — the directory was deleted or the repository cloned again:\n" +
		"  " + errs.As(gone).Message + "\n" +
		"starting over begins a new chain here; its first event records the old one (its revision and head), whose todos, rounds, evidence and gate answers are not recovered\n" +
		"type \"start over\" to confirm: "
	if err := gateanswer.ConfirmRepair(ctx, e, a.caller(), a.terminal(), gateanswer.Repair{Rule: "start_over", Command: "init",
		Kind: "store.start_over_refused", Subject: ".loopx/", Prompt: prompt}); err != nil {
		if re := errs.As(err); re != nil && re.Kind == errs.No {
			re.Message += " (this path's old chain: " + errs.As(gone).Message + ")"
		}
		return err
	}
	if _, err := e.AcceptStore(); err != nil {
		return err
	}
	return e.Close()
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

A path whose state is gone while loopx still remembers its chain (the
directory deleted, the repository cloned again) is a refusal: a human at a
terminal reads what the old chain reached and starts a new chain by typing
"start over" (its first event records the old one); without a terminal,
from an agent or inside a round it is refused (exit 1), and audited.

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
