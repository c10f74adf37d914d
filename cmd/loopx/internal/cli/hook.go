package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/spf13/cobra"
)

// hookLockTimeout bounds the wait for the state lock inside a hook: it must
// stay below the hook's declared timeout (hosts.HookTimeout), because a host
// treats a timed-out hook as "proceed".
const hookLockTimeout = 5 * time.Second

// hookOptions are `loopx hook`'s flags.
type hookOptions struct {
	host, goal, agent string
}

func (a *app) hookCmd() *cobra.Command {
	var o hookOptions
	c := &cobra.Command{
		Use:   "hook claude-code|codex [--goal G] [--agent A]",
		Short: "Answer an agent host's hook (PreToolUse, Stop, SessionStart) from stdin",
		Long: `Read one hook payload (JSON) on stdin and answer it on stdout, in Claude
Code's hook protocol (Codex uses the same shapes). Install it with
` + "`loopx hooks install`" + `. The goal is --goal, else $LOOPX_GOAL, else the
spec's only goal; the agent is --agent, else $LOOPX_AGENT, else "claude"
("codex" for the codex host).

  PreToolUse    the permission decision for the tool call (Bash command;
                Edit/Write/MultiEdit/NotebookEdit paths; apply_patch files;
                mcp__<server>__<tool> as action mcp.<server>.<tool>) as
                {"hookSpecificOutput":{"permissionDecision":"allow|ask|deny",…}};
                defer (no grant, no objection) is no output: the host's
                own permission flow decides
  Stop,         should-run for this agent: when it says run, {"decision":
  SubagentStop  "block","reason":…} with the next todo and how to report it;
                otherwise (or when stop_hook_active is true) no output: the
                agent may stop
  SessionStart  {"hookSpecificOutput":{"additionalContext":…}}: the goal,
                its objective, the selected todo, open gates with their
                questions and the last handoff
  anything else no output, exit 0 (a documented no-op)

Fail closed: a malformed payload, a missing field, or any internal error
while answering PreToolUse prints the reason on stderr and exits 2, which
blocks the tool call (hosts treat exit 0 without an answer, exit 1, a crash
or a timeout as "proceed"). Errors on Stop and SessionStart exit 1 (a
non-blocking error: the agent stops, nothing is spent).

Exit codes: 0 answered (or nothing to answer); 1 Stop/SessionStart could
not be answered; 2 blocked: bad payload or an internal error on PreToolUse.`,
		Example: `  echo '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push"}}' | loopx hook claude-code --goal g1
  loopx hook codex --goal g1 --agent codex < payload.json`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"claude-code", "codex"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "claude-code" && args[0] != "codex" {
				return a.hookBlock(fmt.Errorf("unknown host %q (want claude-code or codex)", args[0]))
			}
			o.host = args[0]
			return a.runHook(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.goal, "goal", "", "the goal (default $LOOPX_GOAL, else the spec's only goal)")
	c.Flags().StringVar(&o.agent, "agent", "", `the agent (default $LOOPX_AGENT, else "claude", or "codex" for the codex host)`)
	return c
}

// hookBlock fails closed: the reason on stderr, exit 2 (the host blocks).
func (a *app) hookBlock(err error) error {
	fmt.Fprintf(a.stderr, "loopx hook: blocked: %v\n", err)
	return &exitError{code: ExitUsage}
}

// hookSoftError reports an error on an event where blocking would keep the
// agent working (Stop) or matter little (SessionStart): exit 1.
func (a *app) hookSoftError(err error) error {
	fmt.Fprintf(a.stderr, "loopx hook: %v\n", err)
	return &exitError{code: ExitNo}
}

func (a *app) runHook(ctx context.Context, o hookOptions) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = a.hookBlock(fmt.Errorf("internal error: %v", r))
		}
	}()
	ev, err := hosts.ParseHook(a.stdin)
	if err != nil {
		return a.hookBlock(err)
	}
	switch ev.Name {
	case hosts.PreToolUse:
		return a.hookPreToolUse(ctx, ev, o)
	case hosts.Stop, hosts.SubagentStop:
		if ev.StopHookActive {
			return nil // already continuing because of a Stop hook: let it stop
		}
		return a.hookStop(ctx, ev, o)
	case hosts.SessionStart:
		return a.hookSessionStart(ctx, ev, o)
	}
	return nil
}

// hookEngine opens the project's engine for a hook: the project is found
// as usual (--project, $LOOPX_PROJECT, walking up from the working
// directory), else by walking up from the payload's cwd; it then resolves
// the goal and the agent.
func (a *app) hookEngine(ev hosts.Event, o hookOptions) (e *engine.Engine, goal, agent string, err error) {
	root, err := a.root()
	if err != nil && ev.CWD != "" && a.project == "" && os.Getenv("LOOPX_PROJECT") == "" {
		root, err = engine.FindRoot(ev.CWD)
	}
	if err != nil {
		return nil, "", "", err
	}
	if _, err := os.Stat(root); err != nil {
		return nil, "", "", fmt.Errorf("project %s: %w", root, os.ErrNotExist)
	}
	now, err := clock()
	if err != nil {
		return nil, "", "", err
	}
	if a.eng == nil {
		a.eng = engine.New(engine.Options{Root: root, Now: now, LockTimeout: hookLockTimeout})
	}
	e = a.eng
	goal, agent = o.goal, o.agent
	if goal == "" {
		goal = os.Getenv("LOOPX_GOAL")
	}
	if goal == "" {
		if ids := e.GoalIDs(); e.SpecErr() == nil && len(ids) == 1 {
			goal = ids[0]
		} else if err := e.SpecErr(); err != nil {
			return nil, "", "", fmt.Errorf("the spec is broken: %v", specErrorLine(err))
		} else {
			return nil, "", "", fmt.Errorf("which goal? the spec has %d goals: pass --goal or set LOOPX_GOAL", len(ids))
		}
	}
	if agent == "" {
		agent = os.Getenv("LOOPX_AGENT")
	}
	if agent == "" {
		agent = map[string]string{"codex": "codex"}[o.host]
	}
	if agent == "" {
		agent = "claude"
	}
	return e, goal, agent, nil
}

func specErrorLine(err error) string {
	first, _, _ := strings.Cut(err.Error(), "\n")
	return first
}

func (a *app) hookPreToolUse(ctx context.Context, ev hosts.Event, o hookOptions) error {
	call, err := ev.ToolCall()
	if err != nil {
		return a.hookBlock(err)
	}
	e, goal, agent, err := a.hookEngine(ev, o)
	if err != nil {
		return a.hookBlock(err)
	}
	dir := ""
	if filepath.IsAbs(ev.CWD) {
		dir = ev.CWD
	}
	d, err := e.Permission(ctx, goal, agent, engine.PermissionInput{Tool: call.Tool, Paths: call.Paths, Command: call.Command, Dir: dir})
	if err != nil {
		return a.hookBlock(fmt.Errorf("%v (%s)", err, reasonText(d)))
	}
	if d.Verdict == "defer" {
		return nil // no grant, no objection: no answer, the host's own permission flow decides
	}
	if err := hosts.WritePermission(a.stdout, d.Verdict, "loopx "+d.Verdict+": "+reasonText(d)); err != nil {
		return a.hookBlock(err)
	}
	return nil
}

// reasonText joins a decision's reason messages for a host to show.
func reasonText(d engine.Decision) string {
	msgs := make([]string, 0, len(d.Reasons))
	for _, r := range d.Reasons {
		msgs = append(msgs, r.Message+" ["+r.Code+"]")
	}
	return strings.Join(msgs, "; ")
}

func (a *app) hookStop(ctx context.Context, ev hosts.Event, o hookOptions) error {
	e, goal, agent, err := a.hookEngine(ev, o)
	if err != nil {
		return a.hookSoftError(err)
	}
	d, err := e.Decide(ctx, engine.Request{Query: "should_run", Goal: goal, Agent: agent})
	if err != nil {
		return a.hookSoftError(err)
	}
	if d.Verdict != "run" || d.Todo == nil {
		return nil // no work, no quota, a gate: the agent may stop
	}
	if err := hosts.WriteStopBlock(a.stdout, stopReason(d)); err != nil {
		return a.hookSoftError(err)
	}
	return nil
}

// stopReason is the next instruction of an agent that still has work.
func stopReason(d engine.Decision) string {
	report := fmt.Sprintf("start a round with `loopx round start --goal %s --agent %s` (it claims the todo), do the work, then report it with `loopx round finish ROUND --outcome progress --done --evidence KIND:STATUS:TEXT --handoff TEXT`", d.Goal, d.Agent)
	if r := os.Getenv("LOOPX_ROUND"); r != "" {
		report = fmt.Sprintf("when it is done, report it with `loopx round finish %s --outcome progress --done --evidence KIND:STATUS:TEXT --handoff TEXT`", r)
	}
	return fmt.Sprintf("loopx: goal %s still has work within its quota. Next todo %s: %q (%s). Work on it now; %s. If you are blocked, say so with `loopx gate raise --goal %s --question \"…?\"` instead of stopping silently.",
		d.Goal, d.Todo.ID, d.Todo.Title, d.Todo.Kind, report, d.Goal)
}

func (a *app) hookSessionStart(ctx context.Context, ev hosts.Event, o hookOptions) error {
	e, goal, agent, err := a.hookEngine(ev, o)
	if err != nil {
		return a.hookSoftError(err)
	}
	st, err := e.Status(goal)
	if err != nil {
		return a.hookSoftError(err)
	}
	d, err := e.Decide(ctx, engine.Request{Query: "should_run", Goal: goal, Agent: agent})
	if err != nil {
		return a.hookSoftError(err)
	}
	if err := hosts.WriteContext(a.stdout, sessionContext(st, d, agent)); err != nil {
		return a.hookSoftError(err)
	}
	return nil
}

// sessionContext is SessionStart's additionalContext: what an agent must
// know about the goal before its first tool call.
func sessionContext(st engine.Status, d engine.Decision, agent string) string {
	var b strings.Builder
	if len(st.Goals) == 0 {
		return fmt.Sprintf("loopx: goal %s not found", d.Goal)
	}
	g := st.Goals[0]
	fmt.Fprintf(&b, "loopx governs this session: goal %s, agent %s (status %s).\nObjective: %s\n", g.ID, agent, g.Status, g.Objective)
	if d.Todo != nil {
		fmt.Fprintf(&b, "Next todo: %s %q (%s). Start a round with `loopx round start --goal %s --agent %s`; finish it with `loopx round finish ROUND --outcome progress|no_change|failed …`.\n",
			d.Todo.ID, d.Todo.Title, d.Todo.Kind, g.ID, agent)
	} else {
		fmt.Fprintf(&b, "Should-run: %s — %s\n", d.Verdict, reasonText(d))
	}
	if len(g.OpenGates) > 0 {
		b.WriteString("Open gates (answered by their answerers, never by an agent's `loopx gate answer`):\n")
		for _, gt := range g.OpenGates {
			fmt.Fprintf(&b, "- %s: %s", gt.ID, gt.Question)
			if len(gt.Guards) > 0 {
				fmt.Fprintf(&b, " (guards %s)", strings.Join(gt.Guards, ", "))
			}
			b.WriteString("\n")
		}
	}
	if h := g.LastHandoff; h != nil {
		fmt.Fprintf(&b, "Last handoff (%s", h.CreatedAt.UTC().Format(time.RFC3339))
		if h.Agent != "" {
			fmt.Fprintf(&b, ", from %s", h.Agent)
		}
		fmt.Fprintf(&b, "): %s\n", h.Summary)
		if h.NextTodo != "" {
			fmt.Fprintf(&b, "Next per the handoff: %s\n", h.NextTodo)
		}
		for _, q := range h.Questions {
			fmt.Fprintf(&b, "Open question: %s\n", q)
		}
	}
	b.WriteString("Tool calls are checked by loopx: writes to loopx/ and .loopx/, outside the goal's scope, and actions guarded by open gates are denied.")
	return b.String()
}
