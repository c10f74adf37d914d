package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/hosts/registry"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/frontend/hook"
	"github.com/spf13/cobra"
)

// hookDeadline is one hook's whole budget (hook.Deadline). A
// variable so that a test can shorten it.
var hookDeadline = hook.Deadline

// testBackstopEnv names, in a test build only (testing.Testing), a
// duration after which a hook's kernel timer fires (hook.Options.Backstop):
// a script sees what the timer leaves without waiting for the deadline.
// A release build ignores it: an agent must not move its hook's timer.
const testBackstopEnv = "LOOPX_TEST_HOOK_BACKSTOP"

// hookBackstop is hook.Options.Backstop: $LOOPX_TEST_HOOK_BACKSTOP in a
// test build, else 0 (the default).
func hookBackstop() time.Duration {
	if !testing.Testing() {
		return 0
	}
	d, _ := time.ParseDuration(os.Getenv(testBackstopEnv))
	return max(d, 0)
}

// testHookDeadlineEnv names, in a test build only, a shorter deadline for
// one hook (read from the caller's environment, so that a server's test
// can shorten the hook it runs). A release build ignores it.
const testHookDeadlineEnv = "LOOPX_TEST_HOOK_DEADLINE"

// hookDeadlineNow is this hook's budget: hookDeadline, or in a test build
// $LOOPX_TEST_HOOK_DEADLINE when it is shorter.
func (a *app) hookDeadlineNow() time.Duration {
	if testing.Testing() {
		if d, err := time.ParseDuration(a.getenv(testHookDeadlineEnv)); err == nil && d > 0 && d < hookDeadline {
			return d
		}
	}
	return hookDeadline
}

// hookProcess is true when loopx runs as its own process (Main), not in
// a test's process (Run): only then does a hook arm its kernel timer and
// cap its memory (hook.Options.Process), which act on the whole process.
var hookProcess bool

// hookOptions are `loopx hook`'s flags and argument.
type hookOptions struct {
	host, goal, agent, event string
}

// validate checks the host argument alone (no project opened); its errors
// are answered the way the event requires (hookArgsError).
func (o *hookOptions) validate(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want one host argument (%s), got %d", registry.WantHookHost(), len(args))
	}
	if _, err := registry.HookHost(args[0]); err != nil {
		return err
	}
	o.host = args[0]
	return nil
}

// runHook answers the payload on stdin (hook.Answer) and reports
// loopx's own error the way its event requires: blocked (exit 2) or a
// warning (exit 0).
func (a *app) runHook(ctx context.Context, o *hookOptions) error {
	r := hook.Answer(ctx, a.stdin, hook.Options{
		Host: o.host, Event: o.event, Goal: o.goal, Agent: o.agent,
		Root: a.root, Named: a.project != "" || a.getenv("LOOPX_PROJECT") != "", Clock: a.clock,
		Ancestry: a.ancestry(), Deadline: a.hookDeadlineNow(), Process: hookProcess && !a.opts.Caller.Remote(), Backstop: hookBackstop(),
		Caller: a.opts.Caller, StateHome: a.opts.StateHome, Resident: a.opts.Resident,
	})
	if r.Engine != nil {
		a.eng = r.Engine // closed by Run
	}
	if r.Abandoned != nil && a.opts.Abandoned != nil {
		a.opts.Abandoned(r.Abandoned)
	}
	switch {
	case r.Err == nil:
		_, err := a.stdout.Write(r.Out)
		return err
	case r.Blocks():
		return a.hookBlock(r.Err) // it is, or may be, a PreToolUse: fail closed
	default:
		return a.hookSoftError(r.Event, r.Err)
	}
}

func (a *app) hookCmd() *cobra.Command {
	o := &hookOptions{}
	c := &cobra.Command{
		Use:   "hook claude-code|codex [--event E] [--goal G] [--agent A]",
		Short: "Answer an agent host's hook (PreToolUse, Stop, SessionStart) from stdin",
		Long: `Read one hook payload (JSON) on stdin and answer it on stdout, in the
host's hook protocol. The project is found as usual (--project,
$LOOPX_PROJECT, walking up) and must be the one that installed the hook:
$CLAUDE_PROJECT_DIR for claude-code, else the nearest directory upwards
whose .claude/settings.json or .codex/hooks.json runs ` + "`loopx hook`" + `;
another (a loopx/ an agent made below the project) blocks PreToolUse.
Install it with ` + "`loopx hooks install`" + `, which writes
--event into each entry so that loopx knows the event even when the payload
cannot be read. The goal is --goal, else $LOOPX_GOAL, else the spec's only
goal; the agent is --agent, else $LOOPX_AGENT, else the agent the processes
above the hook run as (a host started with LOOPX_AGENT, a loopx run), else
"claude" ("codex" for the codex host). An agent acts only as itself: a
named agent other than the one the processes above run as (or processes
of several agents above) is refused (agent_mismatch, audited as
identity.refused): PreToolUse blocks, the other events warn.

  PreToolUse    the permission decision for the tool call (Bash command;
                Edit/Write/MultiEdit/NotebookEdit paths; apply_patch files;
                mcp__<server>__<tool> as action mcp.<server>.<tool>, with
                the paths in its input checked as writes), answered per host:

                  verdict  claude-code                 codex
                  allow    permissionDecision allow    no output
                  defer    no output                   no output
                  ask      permissionDecision ask      permissionDecision deny,
                                                       saying what a human must do
                  deny     permissionDecision deny     permissionDecision deny

  Stop,         should-run for this agent: when it says run, {"decision":
  SubagentStop  "block","reason":…} with the next todo and how to report it;
                otherwise (or when stop_hook_active is true) no output: the
                agent may stop
  SessionStart  {"hookSpecificOutput":{"additionalContext":…}}: the goal,
                its objective, the selected todo, open gates with their
                questions and the last handoff
  anything else no output, exit 0 (a documented no-op)

Errors by event. PreToolUse fails closed: a malformed payload, a missing
field, an internal error, or no answer within the hook's deadline (8 s,
under the installed 10 s timeout) prints the reason on stderr and exits 2,
which blocks the call on both hosts (they treat exit 1, a crash or a timeout
as "proceed"). Stop, SubagentStop and SessionStart never block because of
loopx's own error: the error goes to stderr and, as {"systemMessage":…}, to
the user, and the hook exits 0, so the agent stops normally. An unreadable
payload without --event (an entry installed by an older loopx) blocks,
because it may be a PreToolUse. The installed --event wins over the
payload's: a payload of another event is an error answered as --event's
(a Stop entry warns even for a PreToolUse payload). Arguments that cannot
be parsed (an unknown flag, a missing or unknown host) are answered by the
event too: --event as written, else the payload's; unknown, blocked.

Exit codes: 0 answered (or nothing to answer, or a Stop/SubagentStop/
SessionStart error reported as a warning); 2 blocked: bad payload, an
internal error, or the deadline on PreToolUse.`,
		Example: `  echo '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push"}}' | loopx hook claude-code --event PreToolUse --goal g1
  loopx hook codex --event Stop --goal g1 --agent codex < payload.json`,
		Args:      cobra.ArbitraryArgs, // checked in RunE, answered by event
		ValidArgs: registry.HookHosts(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(args); err != nil {
				return a.hookArgsError(o.event, err)
			}
			return a.runHook(cmd.Context(), o)
		},
	}
	// A flag error (an unknown flag) is answered the way the event
	// requires: the event is --event as written in the arguments, else the
	// payload's hook_event_name.
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return a.hookArgsError(hookEventOf(a.args), err)
	})
	c.Flags().StringVar(&o.event, "event", "", "the hook event this entry is installed for (PreToolUse, Stop, SubagentStop, SessionStart); `hooks install` writes it")
	c.Flags().StringVar(&o.goal, "goal", "", "the goal (default $LOOPX_GOAL, else the spec's only goal)")
	c.Flags().StringVar(&o.agent, "agent", "", `the agent (default $LOOPX_AGENT, else "claude", or "codex" for the codex host)`)
	return c
}

// hookEventOf returns the value of the last --event in args ("" if none):
// it is read from the raw arguments when cobra could not parse them.
func hookEventOf(args []string) string {
	event := ""
	for i, w := range args {
		if w == "--" {
			break
		}
		if v, ok := strings.CutPrefix(w, "--event="); ok {
			event = v
		} else if w == "--event" && i+1 < len(args) {
			event = args[i+1]
		}
	}
	return event
}

// hookArgsError answers a `loopx hook` whose arguments are wrong (an
// unknown flag, an unknown host) as hook.ArgsErrorBlocks says: a
// warning and exit 0, or blocked, exit 2.
func (a *app) hookArgsError(event string, err error) error {
	event, blocks := hook.ArgsErrorBlocks(event, a.stdin)
	if blocks {
		return a.hookBlock(err)
	}
	return a.hookSoftError(event, err)
}

// hookBlock fails closed: the reason on stderr, exit 2 (the host blocks).
func (a *app) hookBlock(err error) error {
	fmt.Fprintf(a.stderr, "loopx hook: blocked: %v\n", err)
	return reported(errs.Usage)
}

// hookSoftError reports loopx's own error on an event where blocking would
// keep the agent working (Stop, SubagentStop) or would stop a session for
// nothing (SessionStart): the error on stderr and as a systemMessage the
// host shows its user, exit 0 (non-blocking on both hosts).
func (a *app) hookSoftError(event string, err error) error {
	fmt.Fprintf(a.stderr, "loopx hook: %v\n", err)
	if werr := hosts.WriteWarning(a.stdout, fmt.Sprintf("loopx hook (%s): %v", event, err)); werr != nil {
		fmt.Fprintf(a.stderr, "loopx hook: %v\n", werr)
	}
	return nil
}
