package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/spf13/cobra"
)

func (a *app) roundCmd() *cobra.Command {
	c := &cobra.Command{Use: "round", Short: "Start and finish rounds (bounded agent turns)"}
	c.AddCommand(a.roundStartCmd(), a.roundFinishCmd(), a.roundShowCmd())
	return c
}

func (a *app) roundStartCmd() *cobra.Command {
	var goal, agent string
	c := &cobra.Command{
		Use:   "start --goal G --agent A",
		Short: "Decide should-run and, on run, claim the todo and open a round",
		Long: `Start decides should_run; on run it claims the selected todo (a 45-minute
lease) and opens a round in one transaction, printing the round id.
--agent defaults to $LOOPX_AGENT, else the agent the processes above run
as; an agent acts only as itself (the processes above this command run as
another agent, or as several: refused, agent_mismatch, audited).
Exit 0 when a round was opened; 1 when the decision was not run, or
agent_mismatch; 2 usage.`,
		Example: `  loopx round start --goal g1 --agent a1 --json`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			if goal == "" {
				return usagef("round start needs --goal and --agent")
			}
			if err := engine.CheckLeaseTTL(a.leaseTTL); err != nil {
				return err
			}
			if agent, err = actAs(cmd.Context(), e, engine.ActInput{Agent: agent, What: "round start", Goal: goal}); err != nil {
				return err
			}
			if agent == "" {
				return usagef("round start needs --goal and --agent")
			}
			res, err := e.StartRound(cmd.Context(), goal, agent)
			if err != nil {
				return err
			}
			if err := a.print(res, func(w io.Writer) {
				if res.Round != nil {
					fmt.Fprintf(w, "round %s started: todo %s %q\n", res.Round.ID, res.Todo.ID, res.Todo.Title)
					return
				}
				renderDecision(w, res.Decision, false)
				if res.Gate != nil {
					fmt.Fprintf(w, "raised gate %s: %s\n", res.Gate.ID, res.Gate.Question)
				}
			}); err != nil {
				return err
			}
			if res.Round == nil {
				return reported(errs.No)
			}
			return nil
		},
	}
	c.Flags().StringVar(&goal, "goal", "", "the goal (required)")
	c.Flags().StringVar(&agent, "agent", defaultAgent(), "the agent (default $LOOPX_AGENT, else the agent the processes above run as)")
	c.Flags().DurationVar(&a.leaseTTL, "lease-ttl", 0, "the lease the round takes on its todo (1s to 24h; default 45m)")
	return c
}

func (a *app) roundFinishCmd() *cobra.Command {
	var req engine.FinishRequest
	var evidence []string
	c := &cobra.Command{
		Use:   "finish ROUND --outcome OUTCOME",
		Short: "Settle a round: outcome, evidence, handoff, todo, charge — in one transaction",
		Long: `Finish settles a round in one transaction. Outcomes: progress and failed are
charged (one round, plus --tokens and --cost-usd); no_change, preflight_failed
and dry_run are not. Finishing a finished round prints the stored receipt and
charges nothing. ROUND defaults to $LOOPX_ROUND. The finishing agent is
--agent (default $LOOPX_AGENT), else the agent the processes above run as;
an agent acts only as itself and finishes only its own rounds.

Exit codes: 0 settled; 1 refused (lease lost, not this agent's round,
agent_mismatch: the processes above run as another agent); 2 an unknown
round or outcome.`,
		Example: `  loopx round finish r-1a2b --outcome progress --done --summary "added the guide" \
      --evidence "test:pass:go test ./..."  --handoff "next: review the guide"
  loopx round finish --outcome no_change --result-hash sha256:abc`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			id := os.Getenv("LOOPX_ROUND")
			if len(args) == 1 {
				id = args[0]
			}
			if id == "" {
				return usagef("which round? give ROUND or set LOOPX_ROUND")
			}
			for _, s := range evidence {
				ev, err := parseEvidence(s)
				if err != nil {
					return err
				}
				req.Evidence = append(req.Evidence, ev)
			}
			if req.Agent, err = actAs(cmd.Context(), e, engine.ActInput{Agent: req.Agent, What: "round finish", Round: id}); err != nil {
				return err
			}
			rc, err := e.FinishRound(cmd.Context(), id, req)
			if err != nil {
				return err
			}
			return a.print(rc, func(w io.Writer) {
				what := "finished"
				if rc.Replayed {
					what = "was already finished"
				}
				fmt.Fprintf(w, "round %s %s: %s, charged %v\n", rc.Round.ID, what, rc.Round.Outcome, rc.Charged)
				if rc.Gate != nil {
					fmt.Fprintf(w, "raised gate %s: %s\n", rc.Gate.ID, rc.Gate.Question)
				}
			})
		},
	}
	f := c.Flags()
	f.StringVar(&req.Outcome, "outcome", "", "progress, failed, no_change, preflight_failed or dry_run")
	f.StringVar(&req.Summary, "summary", "", "what the round did")
	f.Int64Var(&req.Tokens, "tokens", 0, "model tokens the round used")
	f.Float64Var(&req.CostUSD, "cost-usd", 0, "cost of the round in US dollars")
	f.BoolVar(&req.Done, "done", false, "mark the round's todo done")
	f.StringVar(&req.ResultHash, "result-hash", "", "a monitor poll's result hash (same as last time = no_change)")
	f.StringArrayVar(&evidence, "evidence", nil, `evidence as KIND:STATUS:SUMMARY (e.g. "test:pass:go test ./...")`)
	f.StringVar(&req.Handoff, "handoff", "", "what the next round must know")
	f.StringVar(&req.NextTodo, "next-todo", "", "add a successor todo with this title")
	f.StringVar(&req.NextFor, "for", "", "the agent the successor todo is for")
	f.StringVar(&req.Agent, "agent", os.Getenv("LOOPX_AGENT"), "the finishing agent (must be the round's; default $LOOPX_AGENT, else the agent the processes above run as)")
	f.Uint64Var(&req.ExpectedVersion, "expected-version", 0, "the lease version the round holds (version_mismatch otherwise; 0 = not checked)")
	return c
}

func parseEvidence(s string) (kernel.Evidence, error) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 || parts[2] == "" {
		return kernel.Evidence{}, usagef("--evidence %q: want KIND:STATUS:SUMMARY", s)
	}
	return kernel.Evidence{Kind: parts[0], Status: parts[1], Summary: parts[2]}, nil
}

func (a *app) roundShowCmd() *cobra.Command {
	return &cobra.Command{
		Use: "show ROUND", Short: "Show one round", Args: cobra.ExactArgs(1),
		Example: "  loopx round show r-1a2b --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			r, err := e.Round(args[0])
			if err != nil {
				return err
			}
			return a.print(r, func(w io.Writer) {
				fmt.Fprintf(w, "round %s (%s) by %s on %s: %s %s charged=%v\n", r.ID, r.Goal, r.Agent, r.Todo, r.Status, r.Outcome, r.Charged)
			})
		},
	}
}

func (a *app) runCmd() *cobra.Command {
	var o engine.RunOptions
	c := &cobra.Command{
		Use:   "run --goal G --agent A [--max-rounds N] -- CMD [ARG…]",
		Short: "Loop: start a round, run the agent command, finish — until the verdict is not run",
		Long: `Run loops round start → CMD → round finish until should-run says anything but
run (quota spent, a gate open, no todo left…), printing each decision and its
reasons on stderr. CMD runs in the project root with LOOPX_ROUND, LOOPX_GOAL,
LOOPX_AGENT, LOOPX_TODO and LOOPX_PROMPT_FILE set. CMD may report its own
outcome with 'loopx round finish'; otherwise a non-zero exit is failed, exit 0
that changed the work tree or the goal's state is progress (the todo is
done), and exit 0 that changed nothing is no_change.

What CMD changed is compared before and after it, whether or not it reports
itself: loopx/, .loopx/ (less loopx's own writes), git's hooks, config and
excludes and the hosts' settings by content, uncapped; the rest through git
status (inside git) or a walk of at most 50,000 files (outside git). A write
the permission policy denies fails the round and is audited (a protected
path also raises a gate); a tree too large to walk fails the round closed
(charged, audited) without running CMD. Processes below this one act as
agent A: they cannot answer gates as another agent or as a human, nor act
as another agent (--agent of todo claim, round start|finish, …). Run itself
is refused (exit 1, agent_mismatch) when the processes above it run as
another agent than A.

Exit codes: 0 the loop ended because the decision was skip or wait_human, or
--max-rounds was reached; 1 it ended on deny, the change scan could not
see everything, or the processes above run as another agent (agent_mismatch);
2 usage (e.g. CMD not found); 3 internal error.`,
		Example: `  loopx run --goal g1 --agent a1 -- sh -c 'echo work >> src/work.txt'
  loopx run --goal g1 --agent codex --max-rounds 5 -- ./scripts/agent-turn.sh`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			longRunning()
			if cmd.ArgsLenAtDash() < 0 || len(args) == 0 {
				return usagef("give the agent command after --: loopx run --goal G --agent A -- CMD…")
			}
			if o.Goal == "" || o.Agent == "" {
				return usagef("run needs --goal and --agent")
			}
			// Processes below this one act as o.Agent: only a human or that
			// agent itself may start them.
			if _, err := actAs(cmd.Context(), e, engine.ActInput{Agent: o.Agent, What: "run", Goal: o.Goal}); err != nil {
				return err
			}
			if err := engine.CheckLeaseTTL(a.leaseTTL); err != nil {
				return err
			}
			if o.MaxRounds < 0 {
				return usagef("--max-rounds %d must not be negative (0 = no limit)", o.MaxRounds)
			}
			o.Cmd = args[cmd.ArgsLenAtDash():]
			o.Stdout, o.Stderr = a.rawStderr, a.rawStderr // the agent command's own output
			if !a.json {
				o.Stdout = a.rawStdout
			}
			o.OnDecision = func(d engine.Decision) { renderDecision(a.stderr, d, false) }
			o.OnReceipt = func(rc engine.Receipt) {
				fmt.Fprintf(a.stderr, "round %s finished: %s, charged %v\n", rc.Round.ID, rc.Round.Outcome, rc.Charged)
				if rc.Round.Outcome != "progress" && rc.Round.Summary != "" {
					fmt.Fprintf(a.stderr, "  %s\n", rc.Round.Summary)
				}
				if rc.Gate != nil {
					fmt.Fprintf(a.stderr, "raised gate %s: %s\n", rc.Gate.ID, rc.Gate.Question)
				}
			}
			res, err := e.Run(cmd.Context(), o)
			if err != nil {
				return err
			}
			if err := a.print(res, func(w io.Writer) {
				fmt.Fprintf(a.stderr, "ran %d round(s)\n", res.Rounds)
			}); err != nil {
				return err
			}
			if res.Last != nil && res.Last.Verdict == "deny" {
				return reported(errs.No)
			}
			return nil
		},
	}
	c.Flags().StringVar(&o.Goal, "goal", "", "the goal (required)")
	c.Flags().StringVar(&o.Agent, "agent", "", "the agent (required)")
	c.Flags().IntVar(&o.MaxRounds, "max-rounds", 0, "stop after this many rounds (0 = no limit)")
	c.Flags().DurationVar(&a.leaseTTL, "lease-ttl", 0, "the lease each round takes on its todo, renewed while the command runs (1s to 24h; default 45m): a killed agent's todo goes to its peers when it expires")
	return c
}
