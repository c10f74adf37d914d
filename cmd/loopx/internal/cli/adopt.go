package cli

import (
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/internal/errs"
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

adopt makes the files in loopx/ the rules in effect. It is a human's decision,
taken by the built-in rule data.loopx.gate.adopt alone (no user policy takes
part, so a broken one cannot lock the human out): refused (exit 1) as an agent
(LOOPX_AGENT), from inside an agent round (LOOPX_ROUND) or from a process that
descends from an agent. At the terminal it shows the revision and what it
loosens, and the person confirms by typing "adopt" on the controlling terminal
(read from /dev/tty, not stdin: no terminal, or anything else typed, adopts
nothing, exit 1). There is no flag that skips the confirmation. If loopx/
changes while the prompt waits, nothing is adopted (rules_changed, exit 1).
A spec that does not load is not adopted (exit 2).

--restore writes the adopted revision back into loopx/ (spec files and user
policies with their _test.rego files), undoing an edit that is pending. It is a human's
call too (data.loopx.gate.repair: refused, exit 1, to an agent, inside a round
or from an agent's process), without a typed confirmation. Every refusal is
in the audit log (rules.adopt_refused, rules.restore_refused).

Exit codes: 0 adopted or restored (or nothing to do); 1 refused (not a human
channel, no terminal, not confirmed, loopx/ changed meanwhile); 2 the spec on
disk does not load, or nothing adopted yet to restore; 3 internal error.`,
		Example: "  loopx adopt            # shows what loosens; type adopt to confirm\n  loopx adopt --json\n  loopx adopt --restore",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			// in.Actor is who the refusal audit names (agent:ID under
			// LOOPX_AGENT, or the one agent the processes above run as);
			// the rules judge the channel as a human's.
			var in engine.AnswerInput
			ch := answerChannel(e, &in, a.stdin)
			if in.Actor == "human" && len(ch.ActingAgents) == 1 {
				in.Actor = "agent:" + ch.ActingAgents[0]
			}
			if o.restore {
				return a.restore(cmd, e, in.Actor, ch)
			}
			refuse := func(err error) error {
				e.AuditRulesRefusal(false, in.Actor, err)
				return err
			}
			// Decide the channel before asking anyone to type: an agent,
			// a round or an agent's descendant is refused even when there
			// is nothing to adopt; only the confirmation may wait for the
			// terminal.
			d := e.DecideAdopt(cmd.Context(), ch)
			if !d.Allow && !onlyConfirmation(d) {
				return refuse(e.Refusal(d))
			}
			res, err := e.AdoptPreview()
			if err != nil {
				return refuse(err)
			}
			if res.Changed {
				if !d.Allow && !onlyPending(d) { // no terminal to confirm on
					return refuse(e.Refusal(d))
				}
				if err := e.Release(); err != nil { // never hold the state lock while a person types
					return err
				}
				typed, ttyErr := confirmAdopt(res)
				ch.Typed, ch.TTYError = &typed, ttyErr
				if d := e.DecideAdopt(cmd.Context(), ch); !d.Allow {
					return refuse(e.Refusal(d))
				}
				if res, err = e.Adopt(cmd.Context(), engine.AdoptOptions{Expect: &res.Adopted, Ancestry: ch.Ancestry}); err != nil {
					return refuse(err)
				}
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
	c.Flags().BoolVar(&o.restore, "restore", false, "write the adopted revision back into loopx/ (human only)")
	return c
}

// restore runs `loopx adopt --restore` for actor through channel ch: a
// human's call (data.loopx.gate.repair), since it wipes the edits waiting
// in loopx/.
func (a *app) restore(cmd *cobra.Command, e *engine.Engine, actor string, ch engine.Channel) error {
	if err := e.RepairAllowed(cmd.Context(), ch); err != nil {
		e.AuditRulesRefusal(true, actor, err)
		if re := errs.As(err); re != nil && re.Kind == errs.No {
			re.Message = "adopt --restore is for a human: " + re.Message
		}
		return err
	}
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

// onlyConfirmation reports whether d denies only for the terminal
// confirmation (none asked for yet, or no terminal to ask on): what stands
// between a human's channel and an adoption, not a refusal of the channel.
func onlyConfirmation(d engine.Decision) bool {
	for _, r := range d.Reasons {
		if r.Code != "confirmation_pending" && r.Code != "confirmation_required" {
			return false
		}
	}
	return true
}
