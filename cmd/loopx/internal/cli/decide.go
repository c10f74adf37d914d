package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/render"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

func (a *app) decideCmd() *cobra.Command {
	c := &cobra.Command{Use: "decide", Short: "Ask the policy a question (should-run, permission, claim, gate-answer)"}
	var goal, agent string
	var explain bool
	sr := &cobra.Command{
		Use:   "should-run --goal G --agent A",
		Short: "May this agent start a round on this goal now?",
		Long: `Decide should_run for an agent on a goal (design §6): run (with the selected
todo), skip, wait_human or deny, with reasons. Every decision is appended to
.loopx/decisions.jsonl.

Exit codes: 0 run; 1 skip, wait_human or deny; 2 unknown goal, or a broken
spec or user policy (the decision is a deny); 3 the state store is unusable
(the decision is a deny: loopx fails closed).`,
		Example: `  loopx decide should-run --goal g1 --agent a1
  loopx decide should-run --goal g1 --agent a1 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			if goal == "" || agent == "" {
				return usagef("decide should-run needs --goal and --agent")
			}
			if err := e.RequireGoal(goal); errs.IsKind(err, errs.Usage) {
				return err
			}
			d, derr := e.Decide(cmd.Context(), engine.Request{Query: "should_run", Goal: goal, Agent: agent})
			if err := a.print(d, func(w io.Writer) { renderDecision(w, d, explain) }); err != nil {
				return err
			}
			return a.decisionExit(e, d, derr)
		},
	}
	sr.Flags().StringVar(&goal, "goal", "", "the goal (required)")
	sr.Flags().StringVar(&agent, "agent", "", "the asking agent (required)")
	sr.Flags().BoolVar(&explain, "explain", false, "also show the rule and spec field behind each reason, and the revisions")
	c.AddCommand(sr)
	c.AddCommand(a.decidePermissionCmd(), a.decideClaimCmd(), a.decideGateAnswerCmd())
	return c
}

// renderDecision prints a decision for people: the verdict line, then one
// line per reason.
func renderDecision(w io.Writer, d engine.Decision, explain bool) {
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
func (a *app) decisionExit(e *engine.Engine, d engine.Decision, derr error) error {
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
