package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/spf13/cobra"
)

// promptOptions are the flags of `loopx prompt`.
type promptOptions struct {
	reportdata.PromptOptions
}

// validate checks the flags alone (no project opened): --goal and --agent
// are required.
func (o *promptOptions) validate() error {
	if o.Goal == "" || o.Agent == "" {
		return usagef("prompt needs --goal and --agent")
	}
	return nil
}

// runPrompt prints the bounded-turn prompt (engine.Prompt).
func (a *app) runPrompt(ctx context.Context, o *promptOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	p, err := e.Prompt(ctx, o.PromptOptions)
	if err != nil {
		return err
	}
	return a.print(p.Contract(), func(w io.Writer) { fmt.Fprint(w, p.Text) })
}

func (a *app) promptCmd() *cobra.Command {
	o := &promptOptions{}
	c := &cobra.Command{
		Use:   "prompt --goal G --agent A [--full]",
		Short: "Print the bounded-turn prompt an agent host feeds its model",
		Long: `Prompt decides should-run for the agent and prints the prompt of one bounded
turn: the objective, the selected todo (with its lease), open gates with their
questions, the scope rules, the latest handoff, fresh evidence (younger than
evidence.stale_after), the remaining quota, and the exact loopx commands to
report back. It is at most 2,000 characters (--max-chars) unless --full.
When the decision is not run, the prompt says why and that no work is due.
'loopx run' writes the same prompt to $LOOPX_PROMPT_FILE.

Exit codes: 0 printed (whatever the verdict); 2 unknown goal; 3 internal.`,
		Example: `  loopx prompt --goal g1 --agent codex
  loopx prompt --goal g1 --agent codex --full --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runPrompt(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Goal, "goal", "", "the goal (required)")
	c.Flags().StringVar(&o.Agent, "agent", a.defaultAgent(), "the agent (required; default $LOOPX_AGENT)")
	c.Flags().BoolVar(&o.Full, "full", false, "no length bound: every gate, the whole handoff, more evidence")
	c.Flags().IntVar(&o.MaxChars, "max-chars", render.DefaultPromptChars, "the length bound in characters")
	return c
}
