package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/internal/frontend/gateanswer"
	"github.com/spf13/cobra"
)

// adoptOptions are `loopx adopt`'s flags.
type adoptOptions struct {
	restore bool
}

// validate checks the flags alone: --restore is all there is, and it
// takes no value to refuse.
func (o *adoptOptions) validate() error { return nil }

// runAdopt adopts loopx/ (or restores the adopted revision with
// --restore) through this command's channel (gateanswer.Adopt, Restore:
// a human's decision, confirmed at the controlling terminal).
func (a *app) runAdopt(ctx context.Context, o *adoptOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	if o.restore {
		paths, err := gateanswer.Restore(ctx, e, a.caller(), a.terminal())
		if err != nil {
			return err
		}
		return a.print(map[string]any{"restored": paths}, func(w io.Writer) {
			if len(paths) == 0 {
				fmt.Fprintln(w, "loopx/ already holds the adopted rules")
				return
			}
			for _, p := range paths {
				fmt.Fprintf(w, "restored %s\n", p)
			}
		})
	}
	res, err := gateanswer.Adopt(ctx, e, a.caller(), a.terminal())
	if err != nil {
		return err
	}
	return a.print(res, func(w io.Writer) {
		if !res.Changed {
			fmt.Fprintln(w, "loopx/ already is the adopted revision")
			return
		}
		// The changes, old → new, were shown once at the prompt the
		// person confirmed on; saying them again here printed every
		// "loosens" twice on the same terminal (--json keeps them).
		for _, p := range res.Problems {
			fmt.Fprintln(w, gateanswer.ProblemLine(p))
		}
		if len(res.Problems) > 0 {
			fmt.Fprintln(w, gateanswer.ProblemsNote)
		}
		fmt.Fprintf(w, "adopted spec %s, policies %s\n", res.Adopted.Spec, res.Adopted.Policy)
	})
}

func (a *app) adoptCmd() *cobra.Command {
	o := &adoptOptions{}
	c := &cobra.Command{
		Use:   "adopt",
		Short: "Adopt the rules in loopx/ (human only), or restore the adopted ones",
		Long: `The rules in effect are the adopted revision of loopx/ kept in loopx's state:
decisions, hooks, run and watch evaluate it. Each field is compared by what
its value permits (an empty goal agents list is every agent, an empty
scope.write anywhere): an edit that permits nothing more (a gate added, a
quota lowered, a glob narrowed, a grant removed) is adopted automatically;
anything that loosens, and any policy change, waits for a human. Each change
is shown with its direction ("goals.g1.agents: [a1] → [] (every agent):
loosens").

adopt makes the files in loopx/ the rules in effect. It is a human's decision,
taken by the built-in rule data.loopx.adopt.confirm alone (no user policy takes
part, so a broken one cannot lock the human out): refused (exit 1) as an agent
(LOOPX_AGENT), from inside an agent round (LOOPX_ROUND) or from a process that
descends from an agent. At the terminal it shows the revision and each change
once (old → new, and whether it loosens), and the person confirms by typing
"adopt" on the controlling terminal (read from /dev/tty, not stdin: no
terminal, or anything else typed, adopts nothing, exit 1); the output then
names the revision adopted (--json lists the changes). There is no flag that
skips the confirmation. If loopx/ changes while the prompt waits, nothing is
adopted (rules_changed, exit 1).
A spec that does not load is not adopted (exit 2).

--restore writes the adopted revision back into loopx/ (spec files and user
policies with their _test.rego files), undoing an edit that is pending. It is a
human's call too (data.loopx.adopt.restore: refused, exit 1, to an agent, inside
a round or from an agent's process): it lists every file it overwrites (your
own uncommitted edits there included) and restores only when "restore" is typed
back on the controlling terminal. Every refusal is in the audit log
(rules.adopt_refused, rules.restore_refused).

Exit codes: 0 adopted or restored (or nothing to do); 1 refused (not a human
channel, no terminal, not confirmed, loopx/ changed meanwhile); 2 the spec on
disk does not load, or nothing adopted yet to restore; 3 internal error.`,
		Example: "  loopx adopt            # shows what loosens; type adopt to confirm\n  loopx adopt --json\n  loopx adopt --restore  # shows the files it overwrites; type restore to confirm",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runAdopt(cmd.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.restore, "restore", false, "write the adopted revision back into loopx/ (human only)")
	return c
}
