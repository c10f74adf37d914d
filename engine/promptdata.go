package engine

import (
	"context"
	"unicode/utf8"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Prompt decides should_run for (goal, agent) — the decision is logged
// like any other — and builds the prompt an agent host feeds its model for
// one bounded turn: the objective, the selected todo (with its lease), the
// open gates with their questions, the scope rules, the latest handoff,
// fresh evidence (not older than evidence.stale_after), the remaining
// quota and the exact loopx commands to report back. It is at most
// MaxChars characters unless Full. Errors: errs.Usage for an unknown
// goal, the spec's errors, store errors.
func (e *Engine) Prompt(ctx context.Context, o reportdata.PromptOptions) (reportdata.Prompt, error) {
	p := reportdata.Prompt{Goal: o.Goal, Agent: o.Agent}
	if err := e.RequireGoal(o.Goal); err != nil {
		return p, err
	}
	if o.Agent == "" {
		return p, Usagef("missing_agent", "which agent? give --agent")
	}
	e.SeedSpecTodos(o.Goal)
	d, err := e.Decide(ctx, Request{Query: query.ShouldRun, Goal: o.Goal, Agent: o.Agent})
	if err != nil {
		return p, err
	}
	var todo *records.Todo
	if d.Verdict == "run" && d.Todo != nil {
		t, err := e.Todo(d.Todo.ID)
		if err != nil {
			return p, err
		}
		todo = &t
	}
	return e.buildPrompt(promptInput{goal: o.Goal, agent: o.Agent, decision: d, todo: todo, full: o.Full, max: o.MaxChars})
}

// promptInput is what a prompt is asked for: the turn's goal, agent and
// should_run decision, the selected todo, the open round (loopx run) and
// the bound.
type promptInput struct {
	goal, agent string
	decision    decision.Decision
	todo        *records.Todo
	round       *records.Round
	full        bool
	max         int
}

// buildPrompt reads what the prompt of in shows (the goal's spec, open
// gates, latest handoff, fresh evidence) in one read transaction and
// renders it (render.Prompt). Errors: errs.Usage for a goal the spec
// does not have, store errors.
func (e *Engine) buildPrompt(in promptInput) (reportdata.Prompt, error) {
	p := reportdata.Prompt{Goal: in.goal, Agent: in.agent, Verdict: in.decision.Verdict, DecisionID: in.decision.DecisionID, Todo: in.todo}
	t := render.Turn{Goal: in.goal, Agent: in.agent, Verdict: in.decision.Verdict, Reasons: in.decision.Reasons,
		NextCheckAt: in.decision.NextCheckAt, Quota: in.decision.Quota, Todo: in.todo, Full: in.full, MaxChars: in.max}
	if in.round != nil {
		p.Round, t.Round = in.round.ID, in.round.ID
	}
	gs := e.rules.facts().GoalSpec(in.goal)
	if gs == nil {
		return p, Usagef("unknown_goal", "unknown goal %q", in.goal)
	}
	now := e.Now()
	if err := e.view(func(tx *kernel.Tx) error { return reportdata.Turn(e.rules.facts(), tx, gs, &t, now) }); err != nil {
		return p, err
	}
	p.Text, p.Truncated = render.Prompt(t)
	p.Chars = utf8.RuneCountInString(p.Text)
	return p, nil
}

// Answered are the answered gates of goal that concerned agent whose
// answer it has not heard yet (reportdata.Answered: until its next finished
// round). Errors: store errors.
func (e *Engine) Answered(goal, agent string) ([]records.Gate, error) {
	var out []records.Gate
	err := e.view(func(tx *kernel.Tx) error {
		var err error
		out, err = reportdata.Answered(tx, goal, agent)
		return err
	})
	return out, err
}
