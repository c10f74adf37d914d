package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

func (a *app) decideCmd() *cobra.Command {
	c := &cobra.Command{Use: "decide", Short: "Ask the policy a question (should-run, permission, claim, gate-answer)"}
	c.AddCommand(a.shouldRunCmd(), a.decidePermissionCmd(), a.decideClaimCmd(), a.decideGateAnswerCmd())
	return c
}

// renderDecision prints a decision for people: the verdict line, then one
// line per reason.
func renderDecision(w io.Writer, d decision.Decision, explain bool) {
	line := fmt.Sprintf("%s: %s", d.Query, d.Verdict)
	if d.Todo != nil {
		line += fmt.Sprintf(" %s %q", d.Todo.ID, d.Todo.Title)
	}
	if d.NextCheckAt != nil {
		line += " (next check " + *d.NextCheckAt + ")"
	}
	fmt.Fprintln(w, line)
	for _, r := range d.Reasons {
		fmt.Fprintf(w, "  %s: %s\n", r.Code, r.Message)
		if explain {
			fmt.Fprintf(w, "    rule %s", r.Rule)
			if r.Ref != "" {
				fmt.Fprintf(w, ", ref %s", r.Ref)
			}
			fmt.Fprintln(w)
		}
	}
	if explain {
		if d.Quota != nil {
			fmt.Fprintf(w, "  quota: %s\n", render.QuotaLine(d.Quota))
		}
		fmt.Fprintf(w, "  decision %s; spec %s; policy %s; state %d\n", d.DecisionID, short(d.Revision.Spec), short(d.Revision.Policy), d.Revision.State)
	}
}

func short(h string) string {
	if i := strings.IndexByte(h, ':'); i >= 0 && len(h) > i+13 {
		return h[:i+13]
	}
	return h
}

// decisionExit is the exit of a printed decision, the same for every
// decide query: the verdict's code (verdictExit: 0 run, allow, defer; 1
// otherwise); 2 when the spec or a user policy is broken (the decision is a
// deny); the store's code (3) when the store is unusable. Under --json the
// printed decision is the one document; otherwise the store error is
// printed too.
func (a *app) decisionExit(e *engine.Engine, d decision.Decision, derr error) error {
	var list errs.List
	switch {
	case derr != nil && a.json:
		return reported(errs.KindOf(derr))
	case derr != nil:
		return derr
	case errors.As(e.SpecErr(), &list), engine.IsUserPolicyError(e.PolicyErr()):
		return reported(errs.Input)
	case exitForVerdict(d.Verdict) != ExitOK:
		return reported(errs.No)
	}
	return nil
}

// printPreview prints a previewed decision (decide claim, decide
// gate-answer) and exits as decisionExit does; a usage error (an unknown
// todo or gate: no decision was taken) is returned unprinted.
func (a *app) printPreview(e *engine.Engine, d decision.Decision, derr error, explain bool) error {
	if errs.Exit(derr) == ExitUsage {
		return derr
	}
	if err := a.print(d, func(w io.Writer) { renderDecision(w, d, explain) }); err != nil {
		return err
	}
	return a.decisionExit(e, d, derr)
}
