package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/output"
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/frontend/watch"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/spf13/cobra"
)

// watchOptions are the flags and agent command of `loopx watch`.
type watchOptions struct {
	watch.Options
	exec bool
	// dash is where "--" stood among the arguments (-1: none), args the
	// arguments.
	dash int
	args []string
}

// validate checks the flags alone (no project opened): an agent command
// after -- with --exec, none without.
func (o *watchOptions) validate() error {
	if o.exec {
		if o.dash < 0 || len(o.args) == o.dash {
			return usagef("give the agent command after --: loopx watch --goal G --agent A --exec -- CMD…")
		}
		o.Exec = o.args[o.dash:]
	} else if len(o.args) > 0 {
		return usagef("unexpected arguments %q (an agent command needs --exec)", o.args)
	}
	return nil
}

// runWatch re-decides should-run on every change (internal/frontend/watch) and
// prints each decision that changed; with --exec it runs rounds.
func (a *app) runWatch(ctx context.Context, o *watchOptions) error {
	longRunning()
	root, err := a.root()
	if err != nil {
		return err
	}
	o.Root = root
	o.StateHome, o.Resident = a.opts.StateHome, a.opts.Resident
	if o.exec && o.Goal != "" && o.Agent != "" { // without them watch.New says what is missing
		// The rounds it runs act as --agent: only a human or that
		// agent itself may start them.
		now, err := a.clock()
		if err != nil {
			return err
		}
		e := engine.New(engine.Options{Root: root, Now: now, StateHome: a.opts.StateHome, Ancestry: a.ancestry(), Resident: a.opts.Resident})
		_ = e.AdoptTightening() // as every command does first
		_, err = actAs(ctx, e, trust.ActRequest{Agent: o.Agent, What: "watch --exec", Goal: o.Goal})
		e.Close()
		if err != nil {
			return err
		}
	}
	if t, pinned, err := a.pinnedClock(); err != nil {
		return err
	} else if pinned {
		o.Clock = watch.NewManualClock(t) // pinned: timers never fire
	}
	// The agent's output goes to stderr, as under `loopx run`: stdout
	// carries only watch's own decision lines, which scripts read.
	o.ExecStdout, o.ExecStderr = a.rawStderr, a.rawStderr
	if o.exec {
		if o.ExecCaller, err = a.roundCaller("watch --exec"); err != nil {
			return err
		}
	}
	st := newStatusLine(a.rawStderr)
	o.OnChange = func(ch watch.Change) {
		st.clear()
		if a.json {
			b, _ := json.Marshal(ch)
			fmt.Fprintf(a.stdout, "%s\n", b)
		} else {
			fmt.Fprintln(a.stdout, changeLine(ch))
		}
		st.redraw()
	}
	o.OnNotice = func(n watch.Notice) {
		st.clear()
		for _, l := range strings.Split(n.Message, "\n") {
			fmt.Fprintf(a.stderr, "loopx: %s: %s\n", n.Level, l)
		}
		st.redraw()
	}
	o.OnRound = func(rc rounds.Receipt) {
		st.clear()
		fmt.Fprintf(a.stderr, "round %s finished: %s, charged %v\n", rc.Round.ID, rc.Round.Outcome, rc.Charged)
		st.redraw()
	}
	o.OnStatus = st.update
	w, err := watch.New(o.Options)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "loopx: watching %s in %s (Ctrl-C to stop)\n", strings.Join(w.Pairs(), ", "), root)
	err = w.Run(ctx)
	st.clear()
	if err == nil && o.exec && ctx.Err() != nil {
		// Exit 130, as loopx run: any round running was recorded first.
		return fmt.Errorf("watch --exec interrupted: %w", ctx.Err())
	}
	return err
}

func (a *app) watchCmd() *cobra.Command {
	o := &watchOptions{}
	c := &cobra.Command{
		Use:   "watch [--goal G] [--agent A] [--json] [--exec -- CMD…]",
		Short: "Re-decide should-run whenever the spec, a policy or the state changes",
		Long: `Watch keeps the spec and the policy loaded and re-decides should-run for
every (goal, agent) pair in scope — the goal's agents from the spec, or
--goal/--agent — when:

  spec     a loopx/*.cue file changes (editor saves by rename are fine;
           a touch or an identical rewrite is not a change)
  policy   a loopx/**/*.rego file changes
  state    any process commits to the kernel (.loopx/state.rev)
  timer    a decision's next_check_at, a monitor's due time or a gate's
           expiry arrives

It prints one line per decision that changed (verdict, todo or reasons) and
nothing while nothing changes; --json prints each as one JSON line: the
decision plus "trigger" ("start" for the first decision of each pair). A spec
or policy edit that does not validate is reported once with its position; the
last good version keeps deciding (revision.stale_spec: true) until it is
fixed. On a terminal a status line on stderr shows the verdicts and the next
timer.

--exec -- CMD… (needs --goal and --agent) runs a round as 'loopx run' does
(the command's output on stderr, stdout keeps the decision lines) whenever the
verdict becomes run, one at a time; it is refused (exit 1,
agent_mismatch, audited) when the processes above it run as another agent
than --agent. Ctrl-C or SIGTERM stops: a running round is finished (failed,
interrupted) and its lease released.

Exit codes: 0 stopped by a signal; 130 stopped while --exec ran a round; 1 --exec refused (agent_mismatch); 2 no spec (the path is named), an invalid
spec or policy at start, an unknown goal, or an agent command that cannot
start; 3 internal error.`,
		Example: `  loopx watch --goal g1
  loopx watch --goal g1 --agent a1 --json
  loopx watch --goal g1 --agent a1 --exec -- ./scripts/agent-turn.sh`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.dash, o.args = cmd.ArgsLenAtDash(), args
			if err := o.validate(); err != nil {
				return err
			}
			return a.runWatch(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Goal, "goal", "", "only this goal (default: every goal of the spec)")
	c.Flags().StringVar(&o.Agent, "agent", "", "only this agent (default: every agent on each goal)")
	c.Flags().BoolVar(&o.exec, "exec", false, "run rounds of --agent on --goal with the command after -- whenever the verdict is run")
	return c
}

// changeLine renders a changed decision for people, on one line:
// "[trigger] goal/agent: verdict todo — code: message; … (next check T)".
func changeLine(ch watch.Change) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s/%s: %s", ch.Trigger, ch.Goal, ch.Agent, ch.Verdict)
	if ch.Todo != nil {
		fmt.Fprintf(&b, " %s %q", ch.Todo.ID, ch.Todo.Title)
	}
	if len(ch.Reasons) > 0 {
		parts := make([]string, len(ch.Reasons))
		for i, r := range ch.Reasons {
			parts[i] = r.Code + ": " + r.Message
		}
		b.WriteString(" — " + strings.Join(parts, "; "))
	}
	if ch.NextCheckAt != nil {
		b.WriteString(" (next check " + *ch.NextCheckAt + ")")
	}
	if ch.Revision.StaleSpec {
		b.WriteString(" [stale spec]")
	}
	return b.String()
}

// statusLine is a one-line status on stderr, shown only when stderr is a
// terminal: it is cleared before anything else is printed and redrawn after.
type statusLine struct {
	w     io.Writer
	tty   bool
	width int
	text  string
	shown bool
}

func newStatusLine(w io.Writer) *statusLine {
	s := &statusLine{w: w, width: 80}
	if wd, tty := output.Terminal(w); tty {
		s.tty, s.width = true, wd
	}
	return s
}

func (s *statusLine) update(st watch.Status) {
	if !s.tty {
		return
	}
	parts := make([]string, 0, len(st.Decisions))
	for _, d := range st.Decisions {
		parts = append(parts, d.Goal+"/"+d.Agent+" "+d.Verdict)
	}
	text := "watching: " + strings.Join(parts, ", ")
	if st.Running {
		text += " · round running"
	}
	if !st.NextTimer.IsZero() {
		text += " · next check " + st.NextTimer.UTC().Format("2006-01-02T15:04:05Z")
	}
	if st.Stale {
		text += " · spec/policy on disk is broken: last good one active"
	}
	if r := []rune(text); len(r) > s.width-1 {
		text = string(r[:s.width-2]) + "…"
	}
	s.text = inert.Line(text)
	s.redraw()
}

func (s *statusLine) clear() {
	if s.tty && s.shown {
		fmt.Fprint(s.w, "\r\x1b[2K")
		s.shown = false
	}
}

func (s *statusLine) redraw() {
	if !s.tty || s.text == "" {
		return
	}
	fmt.Fprint(s.w, "\r\x1b[2K"+s.text)
	s.shown = true
}
