// Package hook is loopx's hooks in agent hosts (Claude Code, Codex):
// installing their entries into a host's settings (`loopx hooks install`)
// and answering one hook (`loopx hook`). Answering reads the payload within
// the hook's deadline, defaults the event (the installed --event wins over
// the payload's), finds the project that installed the hook, resolves the
// goal and the agent (checked by the identity rule), and answers in the
// host's protocol (engine/hosts): PreToolUse with the permission decision,
// Stop and SubagentStop with should-run, SessionStart with the goal's
// context. It says which errors block (a PreToolUse, or an event it cannot
// tell) and which only warn.
//
// It imports the top engine package: a hook's answer is the engine's
// decision (permission, should-run, status) on the project it opens, and
// installing checks the spec's agents and records the entries in the
// engine's state; the engine never imports this package. (engine/hosts,
// the host protocols, is imported by the engine and so cannot hold this.)
package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/loopx-dev/loopx/internal/caller"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/hosts/registry"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/internal/watchdog"
	"github.com/loopx-dev/loopx/kernel/records"
)

// LockTimeout bounds the wait for the state lock inside a hook: it must
// stay below the hook's deadline.
const LockTimeout = 5 * time.Second

// Deadline is one hook's whole budget (reading the payload, opening the
// project, deciding, answering): 8 s, under the 10 s timeout loopx
// installs (hosts.HookTimeout), because a host treats a timed-out hook as
// "proceed". Past it PreToolUse is blocked; the other events answer as on
// any loopx error.
const Deadline = 8 * time.Second

// BackstopMargin is how long after its deadline a hook that runs as its
// own process (Options.Process) is ended by a kernel timer
// (internal/watchdog), whatever the Go runtime is doing: a PreToolUse (or
// an event not yet known) by a signal handler that needs nothing of the
// runtime (watchdog.ArmLast): the host's deny answer (PreToolUse),
// StoppedLine on stderr, a hooks.stopped spool line and exit status 2,
// which blocks the call on both hosts (SIGABRT half a second later as the
// last resort, and where no such handler exists); the other events with
// SIGKILL (no answer, as on any loopx error there). Deadline plus the margin (9 s) stays under the 10 s
// timeout loopx installs. The in-process deadline answers first in every
// case where the runtime can still schedule; the timer is for a policy
// built-in that runs on without a point where it could be stopped.
const BackstopMargin = time.Second

// UserPolicyMemory caps the memory (bytes of data segment, RLIMIT_DATA)
// of a PreToolUse hook that runs as its own process while user policies
// are adopted: 1 GiB, several times what a hook needs at 12,000 todos
// (about 150 MB). A user policy that builds a value past it ends the hook
// with exit status 2 (out of memory), which blocks the call.
const UserPolicyMemory = 1 << 30

// Options are one hook's command line and what the command knows.
type Options struct {
	// Host is the host's name, one whose hooks loopx answers
	// (registry.HookHost: claude-code or codex).
	Host string
	// Event is the event the entry was installed for (--event; "" =
	// the payload's). Goal and Agent are --goal and --agent ("" = their
	// defaults: $LOOPX_GOAL or the spec's only goal; $LOOPX_AGENT, the
	// agent the processes above run as, else the host's).
	Event, Goal, Agent string
	// Root finds the project as every command does (--project,
	// $LOOPX_PROJECT, walking up from the working directory).
	Root func() (string, error)
	// Named is true when the project was named (--project or
	// $LOOPX_PROJECT): the payload's cwd is then never searched.
	Named bool
	// Clock is the command's clock (a pinned one in tests).
	Clock func() (func() time.Time, error)
	// Ancestry is how the engine reads the ancestor processes.
	Ancestry trust.AncestryOptions
	// Deadline is the hook's budget (0 = Deadline).
	Deadline time.Duration
	// Process is true when the hook is the whole process (the loopx
	// binary, not a test calling it in process): it is then ended by a
	// kernel timer BackstopMargin after its deadline, and a PreToolUse
	// with user policies adopted has its memory capped (UserPolicyMemory).
	Process bool
	// Backstop is when the kernel timer fires, counted from the start
	// (0 = the deadline plus BackstopMargin); a test sets it shorter than
	// the deadline to see what the timer leaves.
	Backstop time.Duration
	// Caller is the process the hook runs for: nil is this one; a server
	// (`loopx serve`) sets its client, whose environment and working
	// directory the hook reads instead of its own (Process is then false).
	Caller *caller.Process
	// StateHome and Resident are engine.Options': where the anchor
	// directories live ("" = the default) and the server's kept store
	// (nil = none).
	StateHome string
	Resident  *engine.Resident
}

// Result is what one hook produced: the answer to print, or the error to
// report the way its event requires (Blocks).
type Result struct {
	// Event is the event the answer or error is for ("" = unknown).
	Event string
	// Out is the answer in the host's protocol (nil: no output).
	Out []byte
	// Err is loopx's error; the answer is then not printed.
	Err error
	// Engine is the engine the hook opened (nil if none): the caller
	// closes it once the process is done (a hook past its deadline may
	// still be using it).
	Engine *engine.Engine
	// Abandoned, for a hook answered at its deadline inside a server
	// (Options.Resident set), is closed when the work left running ends:
	// its engine is closed then, which lets the server's kept store go.
	// Until then the server must treat that work as running (its record
	// and its backstop stay). Nil otherwise.
	Abandoned <-chan struct{}
}

// Blocks reports whether r's error blocks the host's call: on a PreToolUse,
// and on an event not known (it may be a PreToolUse), fail closed; on the
// other events loopx's own error is only a warning.
func (r Result) Blocks() bool { return r.Event == "" || r.Event == hosts.PreToolUse }

// ArgsErrorBlocks reports whether an error in a hook's arguments (an
// unknown flag, an unknown host) blocks: event is --event as written, else
// the payload's hook_event_name read from stdin. Stop, SubagentStop and
// SessionStart warn (exit 0) as for any loopx error there; PreToolUse or an
// unknown event blocks. It returns the canonical event too.
func ArgsErrorBlocks(event string, stdin io.Reader) (string, bool) {
	if event == "" {
		data, _ := io.ReadAll(io.LimitReader(stdin, hosts.MaxPayload+1))
		event = hosts.EventName(data)
	}
	switch event = canonicalEvent(event); event {
	case hosts.Stop, hosts.SubagentStop, hosts.SessionStart:
		return event, false
	}
	return event, true
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

// Answer reads one payload from stdin and answers it within o.Deadline.
// It never fails without a Result: an --event loopx does not answer, a
// payload that cannot be read, a payload of another event than --event,
// any engine error, a panic or the deadline are Result.Err.
func Answer(ctx context.Context, stdin io.Reader, o Options) Result {
	o.Event = canonicalEvent(o.Event)
	if o.Event != hosts.PreToolUse {
		// The hook's agent is checked once the project is open; a
		// PreToolUse hook checks it with the call (one evaluation).
		engine.PrepareActing()
	}
	host, err := registry.HookHost(o.Host)
	if err != nil {
		return Result{Event: o.Event, Err: err}
	}
	if o.Event != "" && !slices.Contains(hookEvents, o.Event) {
		return Result{Err: fmt.Errorf("--event %q: want one of %s", o.Event, strings.Join(hookEvents, ", "))}
	}
	deadline := o.Deadline
	if deadline == 0 {
		deadline = Deadline
	}
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	var event atomic.Value // the event as far as it is known, for the deadline
	event.Store(o.Event)
	after := o.Backstop
	if after == 0 {
		after = deadline + BackstopMargin
	}
	bs := &backstop{on: o.Process, at: time.Now().Add(after), host: host}
	bs.set(o.Event)
	done := make(chan Result, 1)
	go func() {
		r := Result{Event: o.Event}
		defer func() {
			if p := recover(); p != nil {
				r.Out, r.Err = nil, fmt.Errorf("internal error: %v", p)
			}
			done <- r
		}()
		r = hook(ctx, stdin, o, host, &event, bs)
	}()
	select {
	case r := <-done:
		bs.stop() // the work is over: nothing left that could run on
		return r
	case <-ctx.Done():
		// The work goes on in its goroutine until the process exits; its
		// engine is never used here. The backstop stays armed: if that
		// work keeps the runtime from answering, the timer ends the process.
		res := Result{Event: event.Load().(string), Err: fmt.Errorf("no answer within the hook's deadline (%s, under the host's %d s timeout): %v", deadline, hosts.HookTimeout, context.Cause(ctx))}
		if o.Resident != nil {
			// In a server the process goes on: the work's engine holds the
			// kept store until it is closed, which is done when the work
			// ends (the server's guard ends the server if it never does).
			left := make(chan struct{})
			go func() {
				if r := <-done; r.Engine != nil {
					_ = r.Engine.Close()
				}
				close(left)
			}()
			res.Abandoned = left
		}
		return res
	}
}

// backstop is a hook's kernel timer (BackstopMargin): armed for the
// event as far as it is known, re-armed when the payload says which, and
// once the project is open with the spool line it leaves (record).
type backstop struct {
	on      bool
	at      time.Time
	host    hosts.Adapter
	mu      sync.Mutex
	t       interface{ Stop() }
	blocks  bool
	stopped bool
	// spool is the live denial spool opened for the timer's line, and
	// line that line (nil: none yet); tool is the call's tool.
	spool *os.File
	line  []byte
	tool  string
}

// StoppedLine is what a hook stopped by its timer says on stderr.
const StoppedLine = "loopx: the hook ran past its deadline and was stopped (the call is blocked)\n"

// set arms the timer for event: for a PreToolUse (or an event not yet
// known) the handler that leaves the deny answer in the host's shape
// (PreToolUse only), StoppedLine and the spool line, with exit status 2,
// SIGABRT as its last resort (watchdog.ArmLast); SIGKILL for the other
// events (no answer). A failure to arm leaves the in-process deadline
// alone.
func (b *backstop) set(event string) {
	if !b.on {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	blocks := Result{Event: event}.Blocks()
	if b.stopped || b.t != nil && b.blocks == blocks {
		return
	}
	b.blocks = blocks
	b.arm(event)
}

// arm (under mu) replaces the timer as set says.
func (b *backstop) arm(event string) {
	if b.t != nil {
		b.t.Stop()
	}
	if !b.blocks {
		b.t, _ = watchdog.Arm(time.Until(b.at), watchdog.Kill)
		return
	}
	last := watchdog.Last{Stderr: []byte(StoppedLine), Status: 2, Record: b.line, RecordFile: b.spool}
	if event == hosts.PreToolUse {
		last.Stdout, _ = b.host.PermissionAnswer("deny", "loopx deny: the hook ran past its deadline and was stopped", "", []string{"hook_deadline"})
	}
	t, err := watchdog.ArmLast(time.Until(b.at), last, watchdog.Abort)
	if err == nil {
		b.t = t
	}
}

// record opens the project's denial spool (stateDir's) and re-arms the
// timer so that, should it stop this PreToolUse hook, a hooks.stopped
// line for goal, agent (as claimed) and the call's tool is left there (the next writer imports it
// into an event a human sees in loopx events). A spool that cannot be
// opened (a link) leaves the timer as it was.
func (b *backstop) record(stateDir, goal, agent string) {
	if !b.on {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped || !b.blocks {
		return
	}
	line, err := json.Marshal(hosts.Denial{Kind: hosts.HookStopped, Goal: goal, Agent: agent, Verdict: "deny", Tool: b.tool,
		Message: fmt.Sprintf("the hook ran past its deadline (%s) and was stopped; the call was blocked", time.Duration(Deadline+BackstopMargin)),
		Codes:   []string{"hook_deadline"}, At: b.at.UTC()})
	if err != nil {
		return
	}
	f, err := hosts.OpenSpool(filepath.Join(stateDir, hosts.SpoolDir))
	if err != nil {
		return
	}
	b.spool, b.line = f, append(line, '\n')
	b.arm(hosts.PreToolUse)
}

// stop disarms the timer for good.
func (b *backstop) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopped = true
	if b.t != nil {
		b.t.Stop()
	}
	if b.spool != nil {
		b.spool.Close()
	}
}

// hook reads, parses and answers one payload; event is updated as soon as
// the event is known.
func hook(ctx context.Context, stdin io.Reader, o Options, host hosts.Adapter, event *atomic.Value, bs *backstop) Result {
	data, rerr := io.ReadAll(io.LimitReader(stdin, hosts.MaxPayload+1))
	ev, perr := host.ParseEvent(data)
	if rerr != nil {
		perr = fmt.Errorf("reading the hook payload: %w", rerr)
	}
	name := ev.Name
	if perr != nil {
		name = hosts.EventName(data)
	}
	r := Result{Event: o.Event}
	switch {
	case r.Event == "":
		r.Event = name
	case name != "" && name != r.Event:
		// A payload of another event than the entry was installed for:
		// answer nothing. The installed --event wins: on a PreToolUse
		// entry the call is blocked; on a Stop, SubagentStop or
		// SessionStart entry it is a warning (exit 0), never a block that
		// would keep the agent working.
		r.Err = fmt.Errorf("the payload is a %s event, but this hook entry is installed for --event %s", name, o.Event)
		return r
	}
	event.Store(r.Event)
	bs.set(r.Event)
	if perr != nil {
		r.Err = perr
		return r
	}
	if !slices.Contains(hookEvents, r.Event) {
		return r // a documented no-op
	}
	if (r.Event == hosts.Stop || r.Event == hosts.SubagentStop) && ev.StopHookActive {
		return r // already continuing because of a Stop hook: let it stop
	}
	var b bytes.Buffer
	r.Engine, r.Err = answer(ctx, ev, o, host, bs, &b)
	r.Out = b.Bytes()
	return r
}

// answer decides ev and writes its answer to w; it returns the engine it
// opened (nil if none) so that the caller closes it.
func answer(ctx context.Context, ev hosts.Event, o Options, host hosts.Adapter, bs *backstop, w io.Writer) (*engine.Engine, error) {
	var call hosts.ToolCall
	if ev.Name == hosts.PreToolUse {
		var err error
		if call, err = host.ToolCall(ev); err != nil {
			return nil, err
		}
	}
	bs.tool = call.Tool
	e, goal, agent, err := open(ctx, ev, o, host, bs)
	if e == nil || err != nil {
		return e, err
	}
	switch ev.Name {
	case hosts.PreToolUse:
		if user, _ := e.UserModules(); o.Process && len(user) > 0 {
			// A user policy may build values without bound: past the cap
			// the process ends with exit status 2 (blocked), never
			// taking the machine's memory.
			_ = watchdog.CapMemory(UserPolicyMemory)
		}
		return e, preToolUse(ctx, e, goal, agent, ev, call, host, w)
	case hosts.Stop, hosts.SubagentStop:
		return e, stop(ctx, e, goal, agent, o.Caller.Getenv("LOOPX_ROUND"), w)
	default:
		return e, sessionStart(ctx, e, goal, agent, w)
	}
}

// open opens the project's engine for a hook: the project is found as
// usual (o.Root), else by walking up from the payload's cwd; it then
// resolves the goal and the agent (checked against the processes above
// the hook: engine.ActAs).
func open(ctx context.Context, ev hosts.Event, o Options, host hosts.Adapter, bs *backstop) (e *engine.Engine, goal, agent string, err error) {
	start, _ := o.Caller.Getwd()
	root, err := o.Root()
	if err != nil && ev.CWD != "" && !o.Named {
		root, err = scaffold.FindRoot(ev.CWD)
		start = ev.CWD
	}
	if err != nil {
		return nil, "", "", err
	}
	if inst, how := hookInstaller(host, start, o.Caller); inst != "" && !sameDir(inst, root) {
		return nil, "", "", fmt.Errorf("the project found, %s, is not the one that installed this hook (%s, %s): a loopx/ below or beside that project never governs its hooks; start the host in the project root or re-install the hooks there", root, inst, how)
	}
	if _, err := os.Stat(root); err != nil {
		return nil, "", "", fmt.Errorf("project %s: %w", root, os.ErrNotExist)
	}
	now, err := o.Clock()
	if err != nil {
		return nil, "", "", err
	}
	// Before anything that may wait for the state lock (the rules in
	// effect, the agent's check): should the timer stop the hook, its line
	// names the goal and the agent as given (--goal, --agent or the
	// environment; "" when the spec or the processes would say).
	bs.record(filepath.Join(root, scaffold.StateDirName), firstOf(o.Goal, o.Caller.Getenv("LOOPX_GOAL")), firstOf(o.Agent, o.Caller.Getenv("LOOPX_AGENT")))
	e = engine.New(engine.Options{Root: root, Now: now, LockTimeout: LockTimeout, Ancestry: o.Ancestry, StateHome: o.StateHome, Resident: o.Resident})
	_ = e.AdoptTightening() // as every command does first
	goal, agent = o.Goal, o.Agent
	if goal == "" {
		goal = o.Caller.Getenv("LOOPX_GOAL")
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
		agent = o.Caller.Getenv("LOOPX_AGENT")
	}
	if ev.Name == hosts.PreToolUse {
		// Its identity is decided with the tool call (preToolUse).
		return e, goal, agent, nil
	}
	// The hook decides for the agent its host runs as: an agent acts only
	// as itself (data.loopx.identity.acting).
	if agent, err = e.ActAs(ctx, actRequest(ev, goal, agent)); err != nil {
		return e, "", "", err
	}
	if agent == "" {
		agent = host.DefaultAgent()
	}
	return e, goal, agent, nil
}

// actRequest is the act a hook for ev asks: as agent (the one given, ""
// for none) on goal.
func actRequest(ev hosts.Event, goal, agent string) trust.ActRequest {
	return trust.ActRequest{Agent: agent, Mode: "act", What: "hook " + ev.Name, Goal: goal, Fast: true}
}

// hookInstaller returns the directory whose settings installed this hook
// and how it was found: the host's ProjectDirEnv when it sets one (Claude
// Code's $CLAUDE_PROJECT_DIR: the project whose .claude/ it loaded; a
// relative one from the caller's working directory), else the nearest
// directory from start upwards whose host settings file holds a `loopx
// hook` command. "" when neither is found (a hook run by hand, or
// installed with --settings elsewhere): the project is then found as
// usual.
func hookInstaller(host hosts.Adapter, start string, c *caller.Process) (dir, how string) {
	if env := host.ProjectDirEnv(); env != "" {
		if d := c.Getenv(env); d != "" {
			if wd, err := c.Getwd(); err == nil && !filepath.IsAbs(d) {
				// From the caller's working directory, not this
				// process's (a server's).
				d = filepath.Join(wd, d)
			}
			return d, "$" + env
		}
	}
	rel := host.SettingsFile()
	if rel == "" || start == "" {
		return "", ""
	}
	for d := filepath.Clean(start); ; {
		if b, err := regularfile.ReadFile(filepath.Join(d, filepath.FromSlash(rel)), hosts.MaxSettingsBytes); err == nil && host.HasLoopxHook(b) {
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

// preToolUse answers a tool call with the permission decision, in host's
// protocol. agent is the agent given ("" for none): whether the hook may
// act as it, and as which agent, is decided with the call
// (engine.HookPermission: one evaluation).
func preToolUse(ctx context.Context, e *engine.Engine, goal, agent string, ev hosts.Event, call hosts.ToolCall, host hosts.Adapter, w io.Writer) error {
	dir := ""
	if filepath.IsAbs(ev.CWD) {
		dir = ev.CWD
	}
	_, d, err := e.HookPermission(ctx, actRequest(ev, goal, agent), host.DefaultAgent(), toolcall.Call{Tool: call.Tool, Paths: call.Paths, Command: call.Command, Dir: dir,
		AskBlocks: !host.CanAsk()})
	if err != nil && d.Verdict == "" {
		return err // the act is refused
	}
	if err != nil {
		return fmt.Errorf("%v (%s)", err, reasonText(d))
	}
	codes := make([]string, 0, len(d.Reasons))
	for _, r := range d.Reasons {
		codes = append(codes, r.Code)
	}
	out, err := host.PermissionAnswer(d.Verdict, "loopx "+d.Verdict+": "+reasonText(d), goal, codes)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// reasonText joins a decision's reason messages for a host to show.
func reasonText(d decision.Decision) string {
	msgs := make([]string, 0, len(d.Reasons))
	for _, r := range d.Reasons {
		msgs = append(msgs, r.Message+" ["+r.Code+"]")
	}
	return strings.Join(msgs, "; ")
}

// stop answers Stop and SubagentStop: a block with the next instruction
// while should-run says run, else nothing (the agent may stop).
func stop(ctx context.Context, e *engine.Engine, goal, agent, round string, w io.Writer) error {
	e.SeedSpecTodos(goal)
	d, err := e.Decide(ctx, engine.Request{Query: query.ShouldRun, Goal: goal, Agent: agent})
	if err != nil {
		return err
	}
	if d.Verdict != "run" || d.Todo == nil {
		return nil // no work, no quota, a gate: the agent may stop
	}
	return hosts.WriteStopBlock(w, stopReason(d, round))
}

// stopReason is the next instruction of an agent that still has work
// (round: the round it runs in, $LOOPX_ROUND, "" when none).
func stopReason(d decision.Decision, round string) string {
	report := fmt.Sprintf("start a round with `loopx round start --goal %s --agent %s` (it claims the todo), do the work, then report it with `loopx round finish ROUND --outcome progress --done --evidence KIND:STATUS:TEXT --handoff TEXT`", d.Goal, d.Agent)
	if r := round; r != "" {
		report = fmt.Sprintf("when it is done, report it with `loopx round finish %s --outcome progress --done --evidence KIND:STATUS:TEXT --handoff TEXT`", r)
	}
	return fmt.Sprintf("loopx: goal %s still has work within its quota. Next todo %s: %q (%s). Work on it now; %s. If you are blocked, say so with `loopx gate raise --goal %s --question \"…?\"` instead of stopping silently.",
		d.Goal, d.Todo.ID, d.Todo.Title, d.Todo.Kind, report, d.Goal)
}

// sessionStart answers SessionStart with the goal's context.
func sessionStart(ctx context.Context, e *engine.Engine, goal, agent string, w io.Writer) error {
	st, err := e.Status(goal)
	if err != nil {
		return err
	}
	e.SeedSpecTodos(goal)
	d, err := e.Decide(ctx, engine.Request{Query: query.ShouldRun, Goal: goal, Agent: agent})
	if err != nil {
		return err
	}
	answers, err := e.Answered(goal, agent)
	if err != nil {
		return err
	}
	text := sessionContext(st, d, agent, answers)
	if line := e.Pending().Line(); line != "" {
		// The agent hears that loopx/ holds changes still waiting for a
		// human, so it does not work as if they were in effect.
		text = strings.TrimRight(text, "\n") + "\n" + line + "\n"
	}
	return hosts.WriteContext(w, text)
}

// sessionContext is SessionStart's additionalContext: what an agent must
// know about the goal before its first tool call, with the answers to
// its questions it has not heard yet.
func sessionContext(st render.Status, d decision.Decision, agent string, answers []records.Gate) string {
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
	for _, gt := range answers {
		fmt.Fprintf(&b, "%s (as data)\n", render.AnswerLine(gt))
	}
	if h := g.LastHandoff; h != nil {
		fmt.Fprintf(&b, "Last handoff (%s", h.CreatedAt.UTC().Format(time.RFC3339))
		if h.Agent != "" {
			fmt.Fprintf(&b, ", from %s", h.Agent)
		}
		// The summary is the agent's words: quoted, so that no line of it
		// reads as a line loopx wrote.
		fmt.Fprintf(&b, "):\n%s\n", render.Quoted(h.Summary))
		if h.NextTodo != "" {
			fmt.Fprintf(&b, "Next per the handoff: %s\n", inert.Line(strings.Join(strings.Fields(h.NextTodo), " ")))
		}
		for _, q := range h.Questions {
			fmt.Fprintf(&b, "Open question: %s\n", inert.Line(strings.Join(strings.Fields(q), " ")))
		}
	}
	b.WriteString("Tool calls are checked by loopx: writes to loopx/ and .loopx/, outside the goal's scope, and actions guarded by open gates are denied.")
	return b.String()
}

// firstOf is the first of a and b that is not "".
func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
