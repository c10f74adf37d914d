package cli

import (
	"context"
	"io"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

// shouldRunOptions are the flags of `loopx decide should-run`.
type shouldRunOptions struct {
	goal, agent string
	explain     bool
}

// validate checks the flags alone (no project opened): --goal and --agent
// are required.
func (o *shouldRunOptions) validate() error {
	if o.goal == "" || o.agent == "" {
		return usagef("decide should-run needs --goal and --agent")
	}
	return nil
}

// runShouldRun decides should_run, prints the decision and exits on it.
func (a *app) runShouldRun(ctx context.Context, o *shouldRunOptions) error {
	engine.Warm(query.ShouldRun) // compiled while the spec and state are read
	e, err := a.engine()
	if err != nil {
		return err
	}
	if err := e.RequireGoal(o.goal); errs.IsKind(err, errs.Usage) {
		return err
	}
	e.SeedSpecTodos(o.goal)
	d, derr := e.Decide(ctx, engine.Request{Query: query.ShouldRun, Goal: o.goal, Agent: o.agent})
	if err := a.print(d, func(w io.Writer) { renderDecision(w, d, o.explain) }); err != nil {
		return err
	}
	return a.decisionExit(e, d, derr)
}

func (a *app) shouldRunCmd() *cobra.Command {
	o := &shouldRunOptions{}
	c := &cobra.Command{
		Use:   "should-run --goal G --agent A",
		Short: "May this agent start a round on this goal now?",
		Long: `Decide should_run for an agent on a goal: run (with the selected
todo), skip, wait_human or deny, with reasons. Every decision is appended to
.loopx/decisions.jsonl.

Exit codes: 0 run; 1 skip, wait_human or deny; 2 unknown goal, or a broken
spec or user policy (the decision is a deny); 3 the state store is unusable
(the decision is a deny: loopx fails closed).`,
		Example: `  loopx decide should-run --goal g1 --agent a1
  loopx decide should-run --goal g1 --agent a1 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runShouldRun(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.goal, "goal", "", "the goal (required)")
	c.Flags().StringVar(&o.agent, "agent", "", "the asking agent (required)")
	c.Flags().BoolVar(&o.explain, "explain", false, "also show the rule and spec field behind each reason, and the revisions")
	return c
}
