package cli

import (
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine"
	"github.com/spf13/cobra"
)

// adoptOptions are `loopx adopt`'s flags.
type adoptOptions struct {
	restore bool
}

func (a *app) adoptCmd() *cobra.Command {
	var o adoptOptions
	c := &cobra.Command{
		Use:   "adopt",
		Short: "Adopt the rules in loopx/ (human only), or restore the adopted ones",
		Long: `The rules in effect are the adopted revision of loopx/ kept in loopx's state:
decisions, hooks, run and watch evaluate it. An edit that only tightens (a gate
added, a quota lowered, a scope narrowed, a grant removed) is adopted
automatically; anything that loosens, and any policy change, waits for a human.

adopt makes the files in loopx/ the rules in effect. It is a human-only repair,
decided by the built-in channel rule data.loopx.gate.repair alone (no user
policy takes part, so a broken one cannot lock the human out): refused (exit 1)
from inside an agent round (LOOPX_ROUND/LOOPX_AGENT) or from a process that
descends from an agent. A spec that does not load is not adopted (exit 2).

--restore writes the adopted revision back into loopx/ (spec files and user
policies; policy tests are left alone), undoing an edit that is pending.

Exit codes: 0 adopted or restored (or nothing to do); 1 refused (not a human
channel); 2 the spec on disk does not load, or nothing adopted yet to restore;
3 internal error.`,
		Example: "  loopx adopt\n  loopx adopt --json\n  loopx adopt --restore",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			if o.restore {
				paths, err := e.Restore()
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
			in := engine.AnswerInput{Actor: "human"}
			if err := e.RepairAllowed(cmd.Context(), answerChannel(e, &in, a.stdin)); err != nil {
				return err
			}
			res, err := e.Adopt(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				if !res.Changed {
					fmt.Fprintln(w, "loopx/ already is the adopted revision")
					return
				}
				for _, r := range res.Loosens {
					fmt.Fprintf(w, "loosens: %s: %s\n", r.Ref, r.Message)
				}
				fmt.Fprintf(w, "adopted spec %s, policies %s\n", res.Adopted.Spec, res.Adopted.Policy)
			})
		},
	}
	c.Flags().BoolVar(&o.restore, "restore", false, "write the adopted revision back into loopx/")
	return c
}
