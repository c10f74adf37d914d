package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/runround"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

// runOptions are the flags and the agent command of `loopx run`.
type runOptions struct {
	runround.Options
	leaseTTL time.Duration
	// leaseTTLSet says --lease-ttl was given (then 0s is out of range).
	leaseTTLSet bool
	// dash is where "--" stood among the arguments (-1: none), args the
	// arguments.
	dash int
	args []string
}

// validate checks the flags alone (no project opened): the agent command
// after --, --goal and --agent, --lease-ttl within 1s..24h, --max-rounds
// not negative.
func (o *runOptions) validate() error {
	if o.dash < 0 || len(o.args) == 0 {
		return usagef("give the agent command after --: loopx run --goal G --agent A -- CMD…")
	}
	if o.Goal == "" {
		return usagef("run needs --goal and --agent")
	}
	if err := checkLeaseTTLFlag(o.leaseTTL, o.leaseTTLSet); err != nil {
		return err
	}
	if o.MaxRounds < 0 {
		return usagef("--max-rounds %d must not be negative (0 = no limit)", o.MaxRounds)
	}
	o.Cmd = o.args[o.dash:]
	return nil
}

// runRun loops rounds of the agent command (engine.Run), printing each
// decision and receipt on stderr; exit 1 when the loop ended on deny.
func (a *app) runRun(ctx context.Context, o *runOptions) error {
	a.leaseTTL = o.leaseTTL
	e, err := a.engine()
	if err != nil {
		return err
	}
	if o.Agent == "" {
		return missingAgent(e, "run", o.Goal)
	}
	longRunning()
	// Processes below this one act as o.Agent: only a human or that
	// agent itself may start them.
	e.Prepare(ctx, false, query.ShouldRun, query.Claim) // before the identity check takes the lock
	if _, err := actAs(ctx, e, trust.ActRequest{Agent: o.Agent, What: "run", Goal: o.Goal}); err != nil {
		return err
	}
	// The agent command's own output goes to stderr with loopx's progress
	// (stdout is for --json's one document). A closed stdout or stderr
	// (piped into head) must not kill loopx mid-round with SIGPIPE: a
	// write there fails instead (Go then reports EPIPE), and the agent's
	// output is dropped without reaching it (agentloop's commandOutput).
	if !a.opts.Caller.Remote() {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	}
	if o.Caller, err = a.roundCaller("run"); err != nil {
		return err
	}
	o.Stdout, o.Stderr = a.rawStderr, a.rawStderr
	o.OnDecision = func(d decision.Decision) { renderDecision(a.stderr, d, false) }
	o.OnReceipt = func(rc rounds.Receipt) {
		fmt.Fprintf(a.stderr, "round %s finished: %s, charged %v\n", rc.Round.ID, rc.Round.Outcome, rc.Charged)
		if rc.Round.Outcome != "progress" && rc.Round.Summary != "" {
			fmt.Fprintf(a.stderr, "  %s\n", rc.Round.Summary)
		}
		if rc.Gate != nil {
			fmt.Fprintf(a.stderr, "raised gate %s: %s\n", rc.Gate.ID, rc.Gate.Question)
		}
	}
	res, err := e.Run(ctx, o.Options)
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
}

func (a *app) runCmd() *cobra.Command {
	o := &runOptions{}
	c := &cobra.Command{
		Use:   "run --goal G --agent A [--max-rounds N] -- CMD [ARG…]",
		Short: "Loop: start a round, run the agent command, finish — until the verdict is not run",
		Long: `Run loops round start → CMD → round finish until should-run says anything but
run (quota spent, a gate open, no todo left…), printing each decision and its
reasons on stderr. CMD runs in the project root with LOOPX_ROUND, LOOPX_GOAL,
LOOPX_AGENT, LOOPX_TODO and LOOPX_PROMPT_FILE set; its output goes to stderr
(a terminal as it is; otherwise copied, and dropped once the destination is
closed: piped into head, CMD neither dies of SIGPIPE nor fails its round for
it), stdout is left for --json's summary. CMD may report its own
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
			o.dash, o.args = cmd.ArgsLenAtDash(), args
			o.leaseTTLSet = cmd.Flags().Changed("lease-ttl")
			if err := o.validate(); err != nil {
				return err
			}
			return a.runRun(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Goal, "goal", "", "the goal (required)")
	c.Flags().StringVar(&o.Agent, "agent", "", "the agent (required)")
	c.Flags().IntVar(&o.MaxRounds, "max-rounds", 0, "stop after this many rounds (0 = no limit)")
	c.Flags().DurationVar(&o.leaseTTL, "lease-ttl", 0, "the lease each round takes on its todo, renewed while the command runs (1s to 24h; default 45m): a killed agent's todo goes to its peers when it expires")
	return c
}

// missingAgent is the usage error of a command that needs --agent: it
// names the agents goal may run (its agents list, or every agent the spec
// declares when the list is empty), or says the spec declares none.
func missingAgent(e *engine.Engine, cmd, goal string) error {
	if err := e.RequireGoal(goal); err != nil {
		return err
	}
	ld, err := e.Spec()
	if err != nil {
		return err
	}
	agents := slices.Clone(ld.Spec.Goals[goal].Agents)
	if len(agents) == 0 {
		agents = slices.Sorted(maps.Keys(ld.Spec.Agents))
	}
	if len(agents) == 0 {
		return usagef("%s needs --agent: the spec declares no agent (add one under agents: in loopx/)", cmd)
	}
	return usagef("%s needs --agent: one of %s (the agents of goal %s)", cmd, strings.Join(agents, ", "), goal)
}
