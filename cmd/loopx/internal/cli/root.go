// Package cli holds loopx's cobra commands: flags, wiring and rendering
// over the engine packages. Every command is one thin file named after it
// (decide_should_run.go, todo_add.go, …) with the same shape: an options
// struct of its flags and arguments, validate (the flags alone, before the
// project is opened: usage errors exit 2), and run(ctx, opts), which opens
// the project, calls the engine and renders its answer. The product logic
// (what decides, mutates or checks) lives in the engine, never here.
package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/loopx-dev/loopx/engine/mutating/agentloop"
	"github.com/loopx-dev/loopx/internal/caller"
	"github.com/loopx-dev/loopx/internal/frontend/gateanswer"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/output"
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/broker/wire"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/specs"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes: errs.Exit maps every error to one.
const (
	ExitOK       = errs.ExitOK
	ExitNo       = errs.ExitNo
	ExitUsage    = errs.ExitUsage
	ExitInternal = errs.ExitInternal
	// ExitInterrupted is a run stopped by SIGINT/SIGTERM (128 + SIGINT, as
	// shells report it); the current round was recorded first.
	ExitInterrupted = errs.ExitInterrupted
)

// verdictExit is the exit code of each decision verdict, for every query
// and every command that exits on a decision (README "Exit codes"): 0 when
// the decision lets the caller go on — run; allow (granted); defer (no
// grant and no objection: the agent host's own permission flow decides) —
// and 1 when it says no: skip, wait_human, ask, deny. A verdict missing
// here says no.
var verdictExit = map[string]int{
	"run": ExitOK, "allow": ExitOK, "defer": ExitOK,
	"skip": ExitNo, "wait_human": ExitNo, "ask": ExitNo, "deny": ExitNo,
}

// exitForVerdict is verdictExit[verdict], ExitNo for an unknown verdict.
func exitForVerdict(verdict string) int {
	if code, ok := verdictExit[verdict]; ok {
		return code
	}
	return ExitNo
}

// Version is loopx's version: engine.Version, set at build time with
// -ldflags "-X github.com/loopx-dev/loopx/engine.Version=v1.2.3", else
// read from the binary's build information (the module version, else
// "dev (REVISION[, modified])"); the decision log records it as
// labels.version.
var Version = engine.Version

// app is the state shared by every command of one invocation.
type app struct {
	// stdout and stderr render every write inert (internal/inert): no
	// control character, escape sequence or bidirectional override that
	// came from a spec, a policy, the store or an agent reaches a terminal.
	// JSON stays exact JSON (its escapes are the same).
	stdout, stderr io.Writer
	// rawStdout and rawStderr are the process's own streams, for what is not
	// loopx's text: an agent command's output under run and watch --exec,
	// the MCP protocol stream, and the watch status line's own redraws.
	rawStdout, rawStderr io.Writer
	stdin                io.Reader
	json                 bool
	project              string
	eng                  *engine.Engine
	// args are the command-line arguments as given (`loopx hook` reads
	// --event from them when cobra cannot parse its flags).
	args []string
	// leaseTTL is --lease-ttl of run and round start (0 = default).
	leaseTTL time.Duration
	// onDisk makes engine() read loopx/ as it is (diskEngine).
	onDisk bool
	// opts are the caller's options (RunWith).
	opts Options
	// paintOut colours loopx's words on a terminal standard output
	// (output.Painter); turned off for output meant for a program.
	paintOut *output.Painter
	// view is true for the read-only views (viewCommands): with spec
	// files that do not load they show the state under the adopted rules,
	// with a banner (specBanner).
	view bool
}

// viewCommands are the read-only views: they show the state even when the
// spec files in loopx/ do not load (a typo), under a banner on stderr
// naming the error and, under --json, with a spec_error field in an object
// document. Decisions are not views: they fail closed as before.
var viewCommands = map[string]bool{
	"loopx status": true, "loopx goal list": true, "loopx goal show": true,
	"loopx todo list": true, "loopx todo show": true, "loopx gate list": true, "loopx gate show": true,
	"loopx quota status": true, "loopx events": true, "loopx handoff show": true, "loopx agent list": true,
	"loopx round show": true, "loopx evidence list": true, "loopx review": true, "loopx log": true,
}

// usagef is a usage mistake caught by the CLI itself: an errs.Usage error
// with code usage (exit 2).
func usagef(format string, a ...any) error { return errs.Usagef("usage", format, a...) }

// reported is the error of a command that already printed its answer and
// now exits with kind's code, printing nothing more (errs.Reported).
func reported(kind errs.Kind) error { return errs.Reported(kind) }

// Main runs loopx with os.Args and returns the process exit code.
func Main() int {
	// gchold held collection while the packages initialised
	// (gchold.HoldCollection): the default pace until the command's own.
	defaultGC()
	if len(os.Args) == 2 && os.Args[1] == specs.ChildCommand {
		// The budgeted spec evaluator (specs.ServeChild): a hidden
		// command this binary runs itself as, for a spec not in the cache.
		return specs.ServeChild(os.Stdin, os.Stdout, os.Stderr)
	}
	if sock := wire.Socket(); sock != "" {
		// Inside an agent's confinement: loopx runs outside (brokered.go).
		if code, ok := brokerClient(sock, os.Args[1:]); ok {
			return code
		}
	}
	if code, ok := forward(os.Args[1:]); ok {
		// A server holds the project's store: it runs the command
		// (served.go).
		return code
	}
	hookProcess = true
	warm := prewarm(os.Args[1:])
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		// Most loopx commands live for milliseconds: collecting garbage
		// then is a fifth of their CPU at the default pace. The commands
		// agents run before every turn or tool call (prewarm's) allocate
		// 15–30 MB at a few hundred todos, most of it compiling policies
		// (a round start at 12,000 todos reaches about 150 MB): they
		// collect none until the heap reaches shortLivedHeap, then the
		// memory limit paces collection. Long-running commands restore the default
		// (longRunning). Set before the warm compile allocates: the
		// runtime's first goal is 4 MB, which it passes.
		if warm != nil {
			debug.SetGCPercent(-1)
			debug.SetMemoryLimit(shortLivedHeap)
		} else {
			debug.SetGCPercent(400)
		}
	}
	if warm != nil {
		warm()
	}
	specs.SetBudget(specs.BudgetFromEnv())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var stdin io.Reader = os.Stdin
	if forwardedStdin != nil {
		// A hook whose payload forward read for a server that was gone
		// by the time it dialled: the command runs here on that payload.
		stdin = io.MultiReader(bytes.NewReader(forwardedStdin), os.Stdin)
	}
	return Run(ctx, os.Args[1:], stdin, os.Stdout, os.Stderr)
}

// Run runs loopx with args and returns the exit code; tests drive it.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(ctx, Options{}, args, stdin, stdout, stderr)
}

// Options are what a caller in the same process sets instead of the
// environment, so that tests running loopx in parallel each keep their
// own: the zero value reads the environment as the binary does.
type Options struct {
	// StateHome is the state directory of the projects' anchor
	// directories (engine.Options.StateHome); "" means $XDG_STATE_HOME,
	// else ~/.local/state.
	StateHome string
	// Now is the clock; nil means the one clock (the system's, or in a
	// test build the instant the test clock variable pins: clock.go).
	Now func() time.Time
	// Dir is the working directory the project is found from (walking
	// up to its loopx/ directory) when neither --project nor
	// $LOOPX_PROJECT names it; "" means the caller's.
	Dir string
	// Caller is the process the command runs for: nil is this process; a
	// server (`loopx serve`) sets its client's, whose environment, working
	// directory, terminal and ancestor processes then say who runs the
	// command (internal/caller).
	Caller *caller.Process
	// Resident is the server's kept store (engine.Options.Resident): the
	// command's engines use it in place of opening the store; nil opens
	// it as a process does.
	Resident *engine.Resident
	// Terminal is where typed confirmations are asked (nil: the
	// controlling terminal, or none for a remote Caller).
	Terminal gateanswer.Terminal
	// Abandoned, when set (a server's), is told of work a command left
	// running past its deadline (a hook's evaluation that cannot be
	// cancelled): the channel closes when that work ends and lets the
	// kept store go.
	Abandoned func(<-chan struct{})
	// Dashboard is true for a command the dashboard page runs for a
	// verified session: a human on the "dashboard" channel (no ancestor
	// processes read: the server's are not the person's); Terminal is
	// then what the person typed on the page.
	Dashboard bool
	// Spawn, when set (a server's, for a client of loopx run or watch
	// --exec), starts the agent command as the client's child
	// (broker.Session.Spawn).
	Spawn agentloop.Spawner
}

// RunWith is Run with o in place of the environment it names.
func RunWith(ctx context.Context, o Options, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// loopx's own words are coloured on a terminal (output.Painter, below
	// the inert writer), unless NO_COLOR is set, TERM is dumb, or the
	// command prints for a program (painted, machineOutput).
	paintOut, paintErr := painter(o.Caller, stdout, 1), painter(o.Caller, stderr, 2)
	defer paintOut.Flush()
	defer paintErr.Flush()
	out, errw := inert.NewWriter(paintOut), inert.NewWriter(paintErr)
	defer out.Flush()
	defer errw.Flush()
	a := &app{stdout: out, stderr: errw, rawStdout: stdout, rawStderr: stderr, stdin: stdin, args: args, opts: o, paintOut: paintOut}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(out)
	root.SetErr(errw)
	err := root.ExecuteContext(ctx)
	if err != nil && !a.json && isFlagError(err) && jsonRequested(args) {
		a.json = true // flag parsing stopped before --json was read
	}
	if err != nil && errs.As(err) == nil && errs.KindOf(err) == errs.Internal && isFlagError(err) {
		err = errs.Wrap(errs.Usage, "usage", err) // cobra's own argument and flag errors
	}
	if a.eng != nil {
		a.warnClockBehind()
		if cerr := a.eng.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}
	if err == nil {
		return ExitOK
	}
	if !errors.Is(err, errs.ErrReported) {
		a.printError(err)
	}
	return errs.Exit(err)
}

// jsonRequested reports whether args ask for --json before any "--".
func jsonRequested(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "--json=true":
			return true
		}
	}
	return false
}

func isFlagError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand", "flag needs", "invalid argument", "unknown command", "accepts ", "requires at least", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// printError prints err once: the JSON error envelope on stdout under
// --json (errs.Envelope), else its lines on stderr (errs.Lines) and, for
// a command-line mistake, where to find the usage.
//
// A message is cut to inert.MaxText characters (inert.Clip): it may quote
// what the caller gave (a 120,000-character --agent was echoed whole).
func (a *app) printError(err error) {
	if a.json {
		entries := errs.Envelope(err)
		for i := range entries {
			entries[i].Message = inert.Clip(entries[i].Message, true)
		}
		_ = output.Errors(a.stdout, entries)
		return
	}
	for _, line := range errs.Lines(err) {
		fmt.Fprintln(a.stderr, inert.Clip(line, true))
	}
	var list errs.List
	if isFlagError(err) && !errors.As(err, &list) {
		fmt.Fprintln(a.stderr, "Run 'loopx --help' for usage.")
	}
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "loopx",
		Short: "A local control plane for long-running AI-agent work",
		Long: `loopx keeps what must outlive an agent's turn — the goal, human gates, todos
with claims and leases, scope, evidence, quota, handoffs — and answers, as
policy, what may happen next. Specs are CUE (loopx/*.cue), policies are Rego,
state is a local buntdb store (.loopx/).

Exit codes: 0 ok or allowed; 1 the decision or check says no; 2 usage or
input error; 3 internal error (e.g. an unreadable state store); 130 run or
watch --exec interrupted (the current round recorded first).`,
		Example: `  loopx init --goal g1 --objective "Ship v2" --agent a1 --host shell
  loopx todo add --goal g1 "Write the migration guide"
  loopx decide should-run --goal g1 --agent a1 --json
  loopx run --goal g1 --agent a1 -- ./agent.sh`,
		Version:       Version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("loopx {{.Version}}\n")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		a.view = viewCommands[cmd.CommandPath()]
		if a.json || machineOutput(cmd) {
			a.paintOut.Off = true // a JSON document, a script, SARIF: exact bytes
		}
		if err := checkNames(cmd, a.getenv); err != nil {
			return err
		}
		return a.checkBrokered(cmd, args)
	}
	root.PersistentFlags().BoolVar(&a.json, "json", false, "print exactly one JSON document on stdout")
	root.PersistentFlags().StringVar(&a.project, "project", "", "project root (default: $LOOPX_PROJECT, else found by walking up from the working directory)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usagef("%v", err) })
	root.AddCommand(a.initCmd(), a.vetCmd(), a.statusCmd(), a.goalCmd(), a.todoCmd(), a.evidenceCmd(),
		a.gateCmd(), a.roundCmd(), a.runCmd(), a.decideCmd(), a.quotaCmd(), a.eventsCmd(), a.versionCmd(),
		a.demoCmd(), a.agentCmd(), a.doctorCmd(), a.hookCmd(), a.hooksCmd(), a.dashboardCmd())
	root.AddCommand(a.mcpCmd()) // mcp.go
	root.AddCommand(a.watchCmd(), a.logCmd(), a.explainCmd())
	root.AddCommand(a.serveCmd())                                 // serve.go
	root.AddCommand(a.handoffCmd(), a.promptCmd(), a.reviewCmd()) // peers.go
	root.AddCommand(a.checkCmd(), a.policyCmd(), a.presetCmd())   // check.go, policy.go, preset.go
	root.AddCommand(a.schemaCmd(), a.adoptCmd())                  // schema.go, adopt.go
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  loopx help round finish"
		case "completion":
			c.Example = "  loopx completion bash > /etc/bash_completion.d/loopx\n  source <(loopx completion zsh)"
			for _, sh := range c.Commands() {
				sh.Example = map[string]string{
					"bash":       "  source <(loopx completion bash)",
					"zsh":        "  source <(loopx completion zsh)",
					"fish":       "  loopx completion fish | source",
					"powershell": "  loopx completion powershell | Out-String | Invoke-Expression",
				}[sh.Name()]
			}
		}
	}
	groupExamples(root)
	groupUnknown(root)
	listsWithoutBreaks(root)
	a.registerFlagCompletions(root) // completion.go
	return root
}

// listsWithoutBreaks makes every comma-separated list flag of c and its
// subcommands refuse a value holding a line break (usage, exit 2): the
// list is read as one CSV record, so `--label "a<newline>b"` kept "a" and
// dropped the rest without a word.
func listsWithoutBreaks(c *cobra.Command) {
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if l, ok := f.Value.(listValue); ok && f.Value.Type() == "stringSlice" {
			f.Value = noBreaks{l}
		}
	})
	for _, sub := range c.Commands() {
		listsWithoutBreaks(sub)
	}
}

// listValue is a list flag's value: a pflag.Value that is a
// pflag.SliceValue too (what reads a flag's entries one by one, such as
// the confinement's path arguments, asks for the slice).
type listValue interface {
	pflag.Value
	pflag.SliceValue
}

// noBreaks is a list flag's value that refuses a line break; it is still
// a pflag.SliceValue.
type noBreaks struct{ listValue }

// errBreak is noBreaks' refusal.
var errBreak = errors.New("a line break is not allowed in a list (separate entries with commas, or repeat the flag)")

func (v noBreaks) Set(s string) error {
	if strings.ContainsAny(s, "\r\n") {
		return errBreak
	}
	return v.listValue.Set(s)
}

func (v noBreaks) Append(s string) error {
	if strings.ContainsAny(s, "\r\n") {
		return errBreak
	}
	return v.listValue.Append(s)
}

func (v noBreaks) Replace(ss []string) error {
	for _, s := range ss {
		if strings.ContainsAny(s, "\r\n") {
			return errBreak
		}
	}
	return v.listValue.Replace(ss)
}

// groupExamples gives every command group without examples of its own the
// first example of each of its subcommands, so every --help shows some.
func groupExamples(c *cobra.Command) {
	for _, sub := range c.Commands() {
		groupExamples(sub)
	}
	if c.Example != "" || !c.HasAvailableSubCommands() {
		return
	}
	var lines []string
	for _, sub := range c.Commands() {
		if first, _, _ := strings.Cut(sub.Example, "\n"); sub.IsAvailableCommand() && first != "" {
			lines = append(lines, first)
		}
	}
	c.Example = strings.Join(lines, "\n")
}

// root resolves the project root: --project, $LOOPX_PROJECT, or walking up.
func (a *app) root() (string, error) {
	if a.project != "" {
		return a.abs(a.project), nil
	}
	if p := a.getenv("LOOPX_PROJECT"); p != "" {
		return a.abs(p), nil
	}
	if a.opts.Dir != "" {
		return scaffold.FindRoot(a.opts.Dir)
	}
	wd, err := a.opts.Caller.Getwd()
	if err != nil {
		return "", err
	}
	return scaffold.FindRoot(wd)
}

// engine opens the project's engine once per invocation.
func (a *app) engine() (*engine.Engine, error) {
	if a.eng != nil {
		return a.eng, nil
	}
	root, err := a.root()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("project %s: %w", root, os.ErrNotExist)
	}
	if err := a.checkResident(root); err != nil {
		return nil, err
	}
	now, err := a.clock()
	if err != nil {
		return nil, err
	}
	a.eng = engine.New(engine.Options{Root: root, Now: now, StateHome: a.opts.StateHome, LeaseTTL: a.leaseTTL, OnDisk: a.onDisk, Ancestry: a.ancestry(), Resident: a.opts.Resident})
	// Every command adopts an edit that only tightens before it reads or
	// writes anything (a store error is the command's own to report).
	_ = a.eng.AdoptTightening()
	return a.eng, nil
}

// diskEngine is engine() over the files in loopx/ as they are (`vet`,
// `check`, `policy test|eval`), with a note on stderr when they differ from
// the adopted rules.
func (a *app) diskEngine() (*engine.Engine, error) {
	a.onDisk = true
	e, err := a.engine()
	if err != nil {
		return nil, err
	}
	if p := e.Pending(); p != nil && p.OnlyTightens {
		fmt.Fprintf(a.stderr, "note: loopx/ differs from the adopted rules (spec %s, policies %s): %s; this command reads the files and adopts nothing, the next decision adopts them\n",
			short(p.Adopted.Spec), short(p.Adopted.Policy), p.Summary())
	} else if p != nil {
		fmt.Fprintf(a.stderr, "note: loopx/ differs from the adopted rules (spec %s, policies %s): %s; this command reads the files, decisions use the adopted revision until a human runs `loopx adopt`\n",
			short(p.Adopted.Spec), short(p.Adopted.Policy), p.Summary())
	}
	return e, nil
}

// print writes v as JSON under --json, else calls text. A read-only view
// over spec files that do not load says so first (specBanner).
func (a *app) print(v any, text func(w io.Writer)) error {
	if specErr := a.specBanner(); specErr != "" && a.json {
		doc, err := output.WithField(v, "spec_error", specErr)
		if err != nil {
			return err
		}
		return output.JSON(a.stdout, doc)
	}
	if a.json {
		return output.JSON(a.stdout, v)
	}
	text(a.stdout)
	return nil
}

// specBanner, for a read-only view whose project's spec files do not load
// (the engine shows the state under the adopted rules), prints once on
// stderr what is wrong and returns it ("file:line:col: field: message");
// "" otherwise. Views still exit 0: they showed what there is.
func (a *app) specBanner() string {
	if !a.view || a.eng == nil {
		return ""
	}
	p := a.eng.Pending()
	if p == nil || p.DiskError == "" {
		return ""
	}
	a.view = false // once
	fmt.Fprintf(a.stderr, "warning: the spec files in loopx/ do not load: %s\n", p.DiskError)
	fmt.Fprintf(a.stderr, "  showing the state under the adopted rules (spec %s); decisions keep using them until the files are fixed (loopx vet)\n", short(p.Adopted.Spec))
	return p.DiskError
}

// actor is who runs the command, as its events record it: the agent it
// acts as ($LOOPX_AGENT names it, and the processes above the command
// must run as it: a plain shell's variable alone is a human; else the one
// agent they run as: actAs), else "human". what
// names the command for a refusal's audit event and goal its goal ("" when
// none). Errors: errs.No agent_mismatch (exit 1).
func (a *app) actor(ctx context.Context, e *engine.Engine, what, goal string) (string, error) {
	ag, err := actAs(ctx, e, trust.ActRequest{Agent: a.getenv("LOOPX_AGENT"), FromEnv: true, What: what, Goal: goal})
	if err != nil || ag == "" {
		return "human", err
	}
	return ag, nil
}

// defaultAgent is the default of an acting --agent flag: $LOOPX_AGENT, a
// name only, checked like the flag against the processes above the
// command (actAs).
func (a *app) defaultAgent() string { return a.getenv("LOOPX_AGENT") }

// actAs returns the agent this command acts as: in.Agent is the agent it
// names (its --agent, by default $LOOPX_AGENT), checked against the
// processes above it by the identity rule (engine.ActAs,
// data.loopx.identity.acting); "" when it names none and no agent is above it.
// Errors: errs.No agent_mismatch (exit 1), audited.
func actAs(ctx context.Context, e *engine.Engine, in trust.ActRequest) (string, error) {
	in.Mode = "act"
	return e.ActAs(ctx, in)
}

// humanOnly asks the built-in channel rule (data.loopx.repair.decision, never
// a user policy) whether a human runs this command, for the human-only
// repairs (doctor --accept-store, review --mark, agent register). what
// names the command ("review --mark"); with prefix it prefixes a refusal's
// message ("review --mark is for a human: …"), else the message is as the
// rule says. A refusal is audited as an event of
// kind about subject (engine.AuditRefusal), naming the one agent the
// processes above run as when there is one. Errors: errs.No when refused
// (exit 1).
func (a *app) humanOnly(ctx context.Context, e *engine.Engine, what string, prefix bool, kind, subject string) error {
	in := gates.Answer{Actor: "human"}
	ch := a.answerChannel(e, &in)
	err := e.RepairAllowed(ctx, ch)
	if err == nil {
		return nil
	}
	// The refusal names who tried: the one agent the ancestry shows, else
	// the agent the environment claims (LOOPX_AGENT), never "human".
	if in.Actor == "human" && len(ch.ActingAgents) == 1 {
		in.Actor = "agent:" + ch.ActingAgents[0]
	} else if in.Actor == "human" && ch.RoundAgent != "" {
		in.Actor = "agent:" + ch.RoundAgent
	}
	e.AuditRefusal(kind, "loopx "+what, in.Actor, subject, err)
	if re := errs.As(err); re != nil && re.Kind == errs.No && prefix {
		re.Message = what + " is for a human: " + re.Message
	}
	return err
}

// groupUnknown makes every command group (a command with subcommands and no
// action of its own) name an unknown subcommand instead of complaining about
// the flags meant for it: `loopx decide foo --goal g1` says that "foo" is
// not a decide command. With no arguments a group prints its help.
func groupUnknown(c *cobra.Command) {
	for _, sub := range c.Commands() {
		groupUnknown(sub)
	}
	if c == c.Root() || !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.FParseErrWhitelist.UnknownFlags = true
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		var names []string
		for _, s := range cmd.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		return usagef("unknown command %q for %q (available: %s)", args[0], cmd.CommandPath(), strings.Join(names, ", "))
	}
}

// shortLivedHeap is the heap, in bytes, below which the commands agents
// run before every turn or tool call collect no garbage (Main).
const shortLivedHeap = 256 << 20

// longRunning restores the default garbage collection for commands that
// run for hours (run, watch, mcp), unless GOGC or GOMEMLIMIT chose
// otherwise.
func longRunning() { defaultGC() }

// defaultGC sets the runtime's default garbage collection (GOGC 100, no
// memory limit) unless GOGC or GOMEMLIMIT chose otherwise.
func defaultGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// CommandPaths returns the path of every runnable command ("loopx todo
// add"), hidden ones left out, in the order help lists them: what a test
// covering every command walks.
func CommandPaths() []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		if c.Runnable() && !c.HasSubCommands() {
			out = append(out, c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk((&app{}).rootCmd())
	return out
}

// painter returns the output.Painter of one of the command's streams (fd
// 1 or 2), on when output.ColourWanted for whoever runs the command: this
// process, or a server's client (its descriptor and environment).
func painter(p *caller.Process, w io.Writer, fd int) *output.Painter {
	tty := false
	if p.Remote() {
		tty = fd == 1 && p.StdoutTTY || fd == 2 && p.StderrTTY
	} else {
		_, tty = output.Terminal(w)
	}
	pt := output.NewPainter(w)
	pt.Off = !output.ColourWanted(tty, p.Getenv)
	return pt
}

// machineOutput reports whether cmd prints for a program whatever --json
// says: completion scripts and candidates, the schemas, the hooks' answers,
// the MCP stream, check's --format json or sarif.
func machineOutput(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd, "schema", "hook", "mcp":
			return true
		}
	}
	if f := cmd.Flags().Lookup("format"); f != nil && f.Value.String() != "" && f.Value.String() != "text" {
		return true
	}
	return false
}

// nameFlags are the flags whose value names an agent or a goal.
var nameFlags = []string{"agent", "goal", "as"}

// checkNames refuses (usage) a name longer than inert.MaxLine characters
// given as --agent, --goal or --as, or in $LOOPX_AGENT or $LOOPX_GOAL:
// no agent or goal has such a name, and every refusal and decision would
// quote it whole (a 120,000-character --agent made a 120 KB answer).
// A hook is left to answer its errors the way its event requires (a Stop
// hook's usage error must not keep the agent running).
func checkNames(cmd *cobra.Command, getenv func(string) string) error {
	if cmd.Name() == "hook" {
		return nil
	}
	for _, name := range nameFlags {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			if err := inert.CheckLen("--"+name, f.Value.String(), false); err != nil {
				return usagef("%v", err)
			}
		}
	}
	for _, env := range []string{"LOOPX_AGENT", "LOOPX_GOAL"} {
		if err := inert.CheckLen("$"+env, getenv(env), false); err != nil {
			return usagef("%v", err)
		}
	}
	return nil
}
