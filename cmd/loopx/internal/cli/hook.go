package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

// hookLockTimeout bounds the wait for the state lock inside a hook: it must
// stay below hookDeadline.
const hookLockTimeout = 5 * time.Second

// hookDeadline is one hook's whole budget (reading the payload, opening
// the project, deciding, answering): 8 s, under the 10 s timeout loopx
// installs (hosts.HookTimeout), because a host treats a timed-out hook as
// "proceed". Past it PreToolUse exits 2 (blocked); the other events answer
// as on any loopx error. A variable so that a test can shorten it.
var hookDeadline = 8 * time.Second

// hookOptions are `loopx hook`'s flags.
type hookOptions struct {
	host, goal, agent, event string
}

func (a *app) hookCmd() *cobra.Command {
	var o hookOptions
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
		ValidArgs: hosts.Hosts,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return a.hookArgsError(o.event, fmt.Errorf("want one host argument (claude-code or codex), got %d", len(args)))
			}
			if !hosts.KnownHost(args[0]) {
				return a.hookArgsError(o.event, fmt.Errorf("unknown host %q (want claude-code or codex)", args[0]))
			}
			o.host = args[0]
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
// unknown flag, an unknown host): on a Stop, SubagentStop or SessionStart
// event (--event, else the payload's hook_event_name) a warning and exit
// 0, as for any loopx error there; otherwise (PreToolUse, or unknown)
// blocked, exit 2.
func (a *app) hookArgsError(event string, err error) error {
	if event == "" {
		data, _ := io.ReadAll(io.LimitReader(a.stdin, hosts.MaxPayload+1))
		event = hosts.EventName(data)
	}
	switch event = canonicalEvent(event); event {
	case hosts.Stop, hosts.SubagentStop, hosts.SessionStart:
		return a.hookSoftError(event, err)
	}
	return a.hookBlock(err)
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

// hookEvents are the events `loopx hook` answers (the others are no-ops).
var hookEvents = []string{hosts.PreToolUse, hosts.Stop, hosts.SubagentStop, hosts.SessionStart}

// canonicalEvent returns the hook event name e spells, compared without
// case ("stop" is Stop: a hand-written entry must not block a Stop over
// spelling), or e itself when it names no event loopx answers (which then
// blocks, as an unknown event may be a PreToolUse).
func canonicalEvent(e string) string {
	for _, name := range hookEvents {
		if strings.EqualFold(e, name) {
			return name
		}
	}
	return e
}

// hookResult is what one hook's work produced: the answer to print, or the
// error to report the way its event requires.
type hookResult struct {
	// event is the event the answer or error is for ("" = unknown, which
	// is treated as a PreToolUse: blocked on error).
	event string
	out   []byte
	err   error
	eng   *engine.Engine
}

func (a *app) runHook(ctx context.Context, o hookOptions) error {
	engine.PrepareActing() // the hook's agent is checked once the project is open
	o.event = canonicalEvent(o.event)
	if o.event != "" && !slices.Contains(hookEvents, o.event) {
		return a.hookBlock(fmt.Errorf("--event %q: want one of %s", o.event, strings.Join(hookEvents, ", ")))
	}
	ctx, cancel := context.WithTimeout(ctx, hookDeadline)
	defer cancel()
	var event atomic.Value // the event as far as it is known, for the deadline
	event.Store(o.event)
	done := make(chan hookResult, 1)
	go func() {
		r := hookResult{event: o.event}
		defer func() {
			if p := recover(); p != nil {
				r.out, r.err = nil, fmt.Errorf("internal error: %v", p)
			}
			done <- r
		}()
		r = a.hook(ctx, o, &event)
	}()
	var r hookResult
	select {
	case r = <-done:
	case <-ctx.Done():
		// The work goes on in its goroutine until the process exits; its
		// engine is never used here.
		r = hookResult{event: event.Load().(string), err: fmt.Errorf("no answer within the hook's deadline (%s, under the host's %d s timeout): %v", hookDeadline, hosts.HookTimeout, context.Cause(ctx))}
	}
	if r.eng != nil {
		a.eng = r.eng // closed by Run
	}
	switch {
	case r.err == nil:
		_, err := a.stdout.Write(r.out)
		return err
	case r.event == "" || r.event == hosts.PreToolUse:
		return a.hookBlock(r.err) // it is, or may be, a PreToolUse: fail closed
	default:
		return a.hookSoftError(r.event, r.err)
	}
}

// hook reads, parses and answers one payload; event is updated as soon as
// the event is known.
func (a *app) hook(ctx context.Context, o hookOptions, event *atomic.Value) hookResult {
	data, rerr := io.ReadAll(io.LimitReader(a.stdin, hosts.MaxPayload+1))
	ev, perr := hosts.ParseHook(bytes.NewReader(data))
	if rerr != nil {
		perr = fmt.Errorf("reading the hook payload: %w", rerr)
	}
	name := ev.Name
	if perr != nil {
		name = hosts.EventName(data)
	}
	r := hookResult{event: o.event}
	switch {
	case r.event == "":
		r.event = name
	case name != "" && name != r.event:
		// A payload of another event than the entry was installed for:
		// answer nothing. The installed --event wins: on a PreToolUse
		// entry the call is blocked; on a Stop, SubagentStop or
		// SessionStart entry it is a warning (exit 0), never a block that
		// would keep the agent working.
		r.err = fmt.Errorf("the payload is a %s event, but this hook entry is installed for --event %s", name, o.event)
		return r
	}
	event.Store(r.event)
	if perr != nil {
		r.err = perr
		return r
	}
	if !slices.Contains(hookEvents, r.event) {
		return r // a documented no-op
	}
	if (r.event == hosts.Stop || r.event == hosts.SubagentStop) && ev.StopHookActive {
		return r // already continuing because of a Stop hook: let it stop
	}
	var b bytes.Buffer
	r.eng, r.err = a.answerHook(ctx, ev, o, &b)
	r.out = b.Bytes()
	return r
}

// answerHook decides ev and writes its answer to w; it returns the engine it
// opened (nil if none) so that the caller closes it.
func (a *app) answerHook(ctx context.Context, ev hosts.Event, o hookOptions, w io.Writer) (*engine.Engine, error) {
	var call hosts.ToolCall
	if ev.Name == hosts.PreToolUse {
		var err error
		if call, err = ev.ToolCall(); err != nil {
			return nil, err
		}
	}
	e, goal, agent, err := a.hookEngine(ctx, ev, o)
	if e == nil || err != nil {
		return e, err
	}
	switch ev.Name {
	case hosts.PreToolUse:
		return e, a.hookPreToolUse(ctx, e, goal, agent, ev, call, o, w)
	case hosts.Stop, hosts.SubagentStop:
		return e, a.hookStop(ctx, e, goal, agent, w)
	default:
		return e, a.hookSessionStart(ctx, e, goal, agent, w)
	}
}

// hookEngine opens the project's engine for a hook: the project is found
// as usual (--project, $LOOPX_PROJECT, walking up from the working
// directory), else by walking up from the payload's cwd; it then resolves
// the goal and the agent (checked against the processes above the hook:
// engine.ActAs).
func (a *app) hookEngine(ctx context.Context, ev hosts.Event, o hookOptions) (e *engine.Engine, goal, agent string, err error) {
	start, _ := os.Getwd()
	root, err := a.root()
	if err != nil && ev.CWD != "" && a.project == "" && os.Getenv("LOOPX_PROJECT") == "" {
		root, err = engine.FindRoot(ev.CWD)
		start = ev.CWD
	}
	if err != nil {
		return nil, "", "", err
	}
	if inst, how := hookInstaller(o.host, start); inst != "" && !sameDir(inst, root) {
		return nil, "", "", fmt.Errorf("the project found, %s, is not the one that installed this hook (%s, %s): a loopx/ below or beside that project never governs its hooks; start the host in the project root or re-install the hooks there", root, inst, how)
	}
	if _, err := os.Stat(root); err != nil {
		return nil, "", "", fmt.Errorf("project %s: %w", root, os.ErrNotExist)
	}
	now, err := a.clock()
	if err != nil {
		return nil, "", "", err
	}
	e = engine.New(engine.Options{Root: root, Now: now, LockTimeout: hookLockTimeout, Ancestry: Ancestry})
	goal, agent = o.goal, o.agent
	if goal == "" {
		goal = os.Getenv("LOOPX_GOAL")
	}
	if goal == "" {
		if ids := e.GoalIDs(); e.SpecErr() == nil && len(ids) == 1 {
			goal = ids[0]
		} else if err := e.SpecErr(); err != nil {
			return e, "", "", fmt.Errorf("the spec is broken: %v", specErrorLine(err))
		} else {
			return e, "", "", fmt.Errorf("which goal? the spec has %d goals: pass --goal or set LOOPX_GOAL", len(ids))
		}
	}
	if agent == "" {
		agent = os.Getenv("LOOPX_AGENT")
	}
	// The hook decides for the agent its host runs as: an agent acts only
	// as itself (data.loopx.gate.acting).
	if agent, err = actAs(ctx, e, engine.ActInput{Agent: agent, What: "hook " + ev.Name, Goal: goal, Fast: true}); err != nil {
		return e, "", "", err
	}
	if agent == "" {
		agent = map[string]string{"codex": "codex"}[o.host]
	}
	if agent == "" {
		agent = "claude"
	}
	return e, goal, agent, nil
}

// hookInstaller returns the directory whose settings installed this hook
// and how it was found: for claude-code $CLAUDE_PROJECT_DIR (Claude Code
// sets it for every hook to the project whose .claude/ it loaded), else the
// nearest directory from start upwards whose hosts.SettingsFile holds a
// `loopx hook` command. "" when neither is found (a hook run by hand, or
// installed with --settings elsewhere): the project is then found as usual.
func hookInstaller(host, start string) (dir, how string) {
	if host == hosts.ClaudeCode {
		if d := os.Getenv("CLAUDE_PROJECT_DIR"); d != "" {
			return d, "$CLAUDE_PROJECT_DIR"
		}
	}
	rel := hosts.SettingsFile(host)
	if rel == "" || start == "" {
		return "", ""
	}
	for d := filepath.Clean(start); ; {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(rel))); err == nil && hosts.HasLoopxHook(b) {
			return d, "its " + rel + " has loopx's hooks"
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// sameDir reports whether a and b name one directory (absolute, symlinks resolved).
func sameDir(a, b string) bool {
	norm := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return filepath.Clean(p)
	}
	return norm(a) == norm(b)
}

func specErrorLine(err error) string {
	first, _, _ := strings.Cut(err.Error(), "\n")
	return first
}

func (a *app) hookPreToolUse(ctx context.Context, e *engine.Engine, goal, agent string, ev hosts.Event, call hosts.ToolCall, o hookOptions, w io.Writer) error {
	dir := ""
	if filepath.IsAbs(ev.CWD) {
		dir = ev.CWD
	}
	d, err := e.Permission(ctx, goal, agent, engine.PermissionInput{Tool: call.Tool, Paths: call.Paths, Command: call.Command, Dir: dir,
		AskBlocks: !hosts.CanAsk(o.host)})
	if err != nil {
		return fmt.Errorf("%v (%s)", err, reasonText(d))
	}
	codes := make([]string, 0, len(d.Reasons))
	for _, r := range d.Reasons {
		codes = append(codes, r.Code)
	}
	out, err := hosts.PermissionAnswer(o.host, d.Verdict, "loopx "+d.Verdict+": "+reasonText(d), goal, codes)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// reasonText joins a decision's reason messages for a host to show.
func reasonText(d engine.Decision) string {
	msgs := make([]string, 0, len(d.Reasons))
	for _, r := range d.Reasons {
		msgs = append(msgs, r.Message+" ["+r.Code+"]")
	}
	return strings.Join(msgs, "; ")
}

func (a *app) hookStop(ctx context.Context, e *engine.Engine, goal, agent string, w io.Writer) error {
	d, err := e.Decide(ctx, engine.Request{Query: "should_run", Goal: goal, Agent: agent})
	if err != nil {
		return err
	}
	if d.Verdict != "run" || d.Todo == nil {
		return nil // no work, no quota, a gate: the agent may stop
	}
	return hosts.WriteStopBlock(w, stopReason(d))
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

func (a *app) hookSessionStart(ctx context.Context, e *engine.Engine, goal, agent string, w io.Writer) error {
	st, err := e.Status(goal)
	if err != nil {
		return err
	}
	d, err := e.Decide(ctx, engine.Request{Query: "should_run", Goal: goal, Agent: agent})
	if err != nil {
		return err
	}
	return hosts.WriteContext(w, sessionContext(st, d, agent))
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
