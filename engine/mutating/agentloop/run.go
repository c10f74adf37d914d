// Package agentloop is `loopx run`'s loop: start a round, run the
// agent command in its own process group while a lease keeper renews the
// round's todo, and finish the round from what the command did, until the
// verdict is not "run". It drives the engine through [Engine] (the round
// mutations, the change scan, the write check) and never imports it.
package agentloop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Started is a round the engine opened: its record and the todo it
// claimed (as claimed, for the lease's TTL).
type Started struct {
	Round *records.Round
	Todo  *records.Todo
}

// Scan is one scan of the project by the engine's change scan, taken
// before and after the agent command.
type Scan interface {
	// Incomplete says why the scan could not see every change ("" when it
	// could): loopx then runs no command, or records none as progress.
	Incomplete() string
}

// Outcome is how the loop finishes a round the command did not finish
// itself: the kernel outcome (progress, failed, no_change,
// preflight_failed), a summary for people, and whether the round's todo
// is done.
type Outcome struct {
	Outcome string
	Summary string
	Done    bool
}

// Engine is what the loop needs of the engine. Every method but Prompt,
// Scan and Written may take the store (and its lock); Release gives it
// back while the agent command runs, so that the command may call loopx
// itself.
type Engine interface {
	// Start decides should_run for the loop's goal and agent and, on
	// "run", opens a round and claims its todo; nil (and no error) when
	// the verdict is not "run", which ends the loop.
	Start(ctx context.Context) (*Started, error)
	// Prompt is the bounded-turn prompt (Markdown) of the round Start
	// opened last.
	Prompt() (string, error)
	// Scan scans the project (the change scan).
	Scan() Scan
	// Written lists the paths changed between two scans, sorted, and
	// loopx's own state when it was edited outside loopx meanwhile.
	Written(before, after Scan) ([]string, error)
	// ScanIncomplete finishes round r failed (charged) because the change
	// scan could not see everything (why), audits it, and returns the
	// error that stops the loop. before and after are the scans around
	// the command (nil when none ran): the protected set they hash in
	// full is compared and reported all the same.
	ScanIncomplete(ctx context.Context, r *records.Round, why string, before, after Scan) error
	// PromptFailed finishes round r preflight_failed (not charged: no
	// command ran) because its prompt file could not be written (err),
	// audits a link found there, and returns the error that stops the
	// loop.
	PromptFailed(ctx context.Context, r *records.Round, err error) error
	// BetweenRounds compares the protected set the scan before round r's
	// command saw with the one the last round ended with (any agent's): a
	// difference, made between rounds by whoever, finishes r not charged,
	// audits it with a gate a human answers, and returns the error that
	// stops the loop; nil when there is none.
	BetweenRounds(ctx context.Context, r *records.Round, before Scan) error
	// RoundEnded records the protected set the scan after round r's
	// command saw, for the next round's BetweenRounds.
	RoundEnded(r *records.Round, after Scan) error
	// GoalRev is the revision of goal in the store.
	GoalRev(goal string) (uint64, error)
	// RenewLease renews the lease round r holds on its todo, if it still
	// holds it; it returns the goal's revision before and after the
	// renewal and whether it renewed.
	RenewLease(r *records.Round) (before, after uint64, ok bool)
	// Release gives the store (and its lock) back.
	Release() error
	// Round is the stored round id.
	Round(id string) (records.Round, error)
	// Reported settles round r that the command finished itself (`loopx
	// round finish`): its receipt, then the check of what it wrote.
	Reported(ctx context.Context, r *records.Round, written []string) error
	// Finish finishes round r with o unless what it wrote is outside the
	// agent's scope (then failed, not done) or a gate opened meanwhile
	// (then no_change, not done); it returns the outcome the round was
	// finished with.
	Finish(ctx context.Context, r *records.Round, o Outcome, written []string) (Outcome, error)
}

// Options configure Run.
type Options struct {
	// Cmd is the agent command and its arguments (not empty), run in Dir.
	Cmd []string
	// Dir is the project root (the command's directory and LOOPX_PROJECT).
	Dir string
	// PromptDir is where the round prompts are written (<round>.md; the
	// newest 200 are kept).
	PromptDir string
	// MaxRounds bounds the rounds run (0 = until the verdict is not run).
	MaxRounds int
	// LeaseTTL is the lease TTL of a todo whose lease names none.
	LeaseTTL time.Duration
	// Wall confines each round's command (nil: it runs unconfined).
	Wall Wall
	// Env is the environment the command starts from (nil: this
	// process's), the round's variables added.
	Env []string
	// Spawn, when set, starts the command instead of this process: as the
	// child of the process that asked for the rounds (a loopx serve
	// client running loopx run), never of this one.
	Spawn Spawner
	// Stdout and Stderr receive the command's output (commandOutput: a
	// terminal directly, anything else through a copy that drops the
	// output once a write fails, so a closed pipe never reaches the
	// command).
	Stdout, Stderr io.Writer
}

// Spawner starts argv in dir with env as another process's child, in a
// process group of its own, its output that process's standard error
// (broker.Session.Spawn). It returns the child's process id and wait: its
// exit code (-1 when a signal ended it) once it ended; when ctx is done
// first, wait stops it (SIGTERM to its group, then SIGKILL) and returns
// then. Errors: it did not start.
type Spawner func(ctx context.Context, argv, env []string, dir string) (pid int, wait func() (int, error), err error)

// Wall is the operating system's confinement of the agent command.
type Wall interface {
	// Enter prepares round r's confinement (before the scan the command's
	// changes are judged against): argv and env are the command and
	// environment loopx would run unconfined. Errors: the confinement
	// cannot be made (the round is not run: preflight_failed).
	Enter(ctx context.Context, r *records.Round, argv, env []string) (Entered, error)
}

// Entered is a round's confinement: the command line and environment to
// run instead, Started to call with the process id it got, and Leave to
// call once the scan after it was taken.
type Entered struct {
	Argv, Env []string
	Started   func(pid int)
	Leave     func()
}

// Run loops round start → exec Cmd → round finish until the verdict is not
// "run" or MaxRounds rounds ran, and returns how many rounds ran the
// command. Cmd gets LOOPX_ROUND, LOOPX_GOAL, LOOPX_AGENT, LOOPX_TODO,
// LOOPX_PROMPT_FILE and LOOPX_PROJECT; the store is released while it runs,
// so it may call loopx itself (e.g. `loopx round finish` to report its own
// outcome, which Run then respects). Otherwise the outcome is derived: a
// non-zero exit is failed; exit 0 with a change to the work tree or the
// goal's state is progress and marks the todo done (a monitor's stays
// open: it is due again after its cadence); exit 0 with no change
// is no_change. Errors: no command is an errs.Usage missing_command; one
// that cannot start is an errs.Usage command_failed (the round is
// finished preflight_failed, not charged); context
// cancellation finishes the current round failed and returns an error
// wrapping ctx.Err(); the engine's errors as they come.
func Run(ctx context.Context, eng Engine, o Options) (int, error) {
	rounds := 0
	if len(o.Cmd) == 0 {
		return rounds, errs.Usagef("missing_command", "no agent command given (loopx run --goal G --agent A -- CMD…)")
	}
	for o.MaxRounds <= 0 || rounds < o.MaxRounds {
		if err := ctx.Err(); err != nil {
			return rounds, err
		}
		st, err := eng.Start(ctx)
		if err != nil || st == nil {
			return rounds, err
		}
		rounds++
		if err := runRound(ctx, eng, o, st); err != nil {
			return rounds, err
		}
	}
	return rounds, nil
}

func runRound(ctx context.Context, eng Engine, o Options, st *Started) error {
	r := st.Round
	prompt, err := writePrompt(eng, o.PromptDir, r.ID)
	if err != nil {
		return eng.PromptFailed(ctx, r, err)
	}
	revBefore, err := eng.GoalRev(r.Goal)
	if err != nil {
		return err
	}
	// The store is released before the scan: what loopx writes as it lets
	// go of the lock (the read model, the decision log) is written before
	// the scan the command's changes are judged against.
	if err := eng.Release(); err != nil {
		return err
	}
	argv := o.Cmd
	base := o.Env
	if base == nil {
		base = os.Environ()
	}
	env := append(slices.Clone(base), "LOOPX_ROUND="+r.ID, "LOOPX_GOAL="+r.Goal, "LOOPX_AGENT="+r.Agent,
		"LOOPX_TODO="+r.Todo, "LOOPX_PROMPT_FILE="+prompt, "LOOPX_PROJECT="+o.Dir)
	started, leave := func(int) {}, func() {}
	if o.Wall != nil {
		// Inside the sandbox a missing command would be the sandbox's exit
		// 1 (failed, charged): it is looked up first, as exec would.
		if err := findCommand(o.Dir, argv[0], pathOf(base)); err != nil {
			return notStarted(ctx, eng, r, err)
		}
		in, err := o.Wall.Enter(ctx, r, argv, env)
		if err != nil {
			// An agent command loopx cannot confine is not run (fail
			// closed): the round is preflight_failed, not charged.
			_, ferr := eng.Finish(context.WithoutCancel(ctx), r, Outcome{Outcome: records.OutcomePreflightFailed,
				Summary: "agent command not confined: " + err.Error()}, nil)
			if ferr != nil {
				return ferr
			}
			return errs.Refusedf("confine_failed", "round %s: the agent command was not run: it could not be confined: %v", r.ID, err)
		}
		argv, env, started, leave = in.Argv, in.Env, in.Started, in.Leave
	}
	defer leave()
	before := eng.Scan()
	if why := before.Incomplete(); why != "" {
		// loopx cannot see what a command would change: it does not run
		// one (fail closed); the round is failed, charged and audited.
		return eng.ScanIncomplete(ctx, r, why, nil, nil)
	}
	// A protected file changed since the last round ended (a process an
	// agent left behind wrote it after its round): no command runs.
	if err := eng.BetweenRounds(ctx, r, before); err != nil {
		return err
	}
	// Reading what the last round left takes the store: give it back
	// before the command runs, whose own loopx calls need the lock.
	if err := eng.Release(); err != nil {
		return err
	}
	if o.Spawn != nil {
		return spawnedRound(ctx, eng, o, st, argv, env, started, revBefore, before)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// The agent command gets its own process group, and stopping loopx stops
	// the whole group (SIGTERM, then SIGKILL after WaitDelay): an agent's
	// children must not keep working after its round was recorded.
	ownGroup(cmd)
	cmd.WaitDelay = 10 * time.Second
	cmd.Dir = o.Dir
	cmd.Stdout, cmd.Stderr, cmd.Stdin = commandOutput(o.Stdout), nil, nil
	if f, ok := o.Stdout.(*os.File); ok && o.Stderr == io.Writer(f) {
		cmd.Stderr = cmd.Stdout // one stream: the command's lines stay in order
	} else {
		cmd.Stderr = commandOutput(o.Stderr)
	}
	cmd.Env = env
	keep := keepLease(eng, r, leaseTTL(st.Todo, o.LeaseTTL), revBefore) // lease.go
	runErr := cmd.Start()
	if runErr == nil {
		started(cmd.Process.Pid)
		runErr = cmd.Wait()
	}
	if ctx.Err() != nil && cmd.Process != nil {
		// Members of the group that ignored SIGTERM (or outlived their
		// leader) must not keep working after the round is recorded.
		killGroup(cmd)
	}
	revKept, changedMeanwhile := keep()
	var ran ranCommand
	var exitErr *exec.ExitError
	switch {
	case runErr != nil && !errors.As(runErr, &exitErr):
		ran.startErr = runErr
	case runErr != nil:
		ran.code = exitErr.ExitCode()
	}
	return afterCommand(ctx, eng, st, before, revKept, changedMeanwhile, ran)
}

// ranCommand is how a round's command ended: it did not start
// (startErr), could not be waited for (waitErr), or exited with code.
type ranCommand struct {
	startErr, waitErr error
	code              int
}

// spawnedRound runs round st's command through o.Spawn (another
// process's child), keeping the round's lease meanwhile, then settles it
// as afterCommand does.
func spawnedRound(ctx context.Context, eng Engine, o Options, st *Started, argv, env []string, started func(int), revBefore uint64, before Scan) error {
	r := st.Round
	keep := keepLease(eng, r, leaseTTL(st.Todo, o.LeaseTTL), revBefore) // lease.go
	var ran ranCommand
	pid, wait, err := o.Spawn(ctx, argv, env, o.Dir)
	if err != nil {
		ran.startErr = err
	} else {
		started(pid)
		ran.code, ran.waitErr = wait()
	}
	revKept, changedMeanwhile := keep()
	return afterCommand(ctx, eng, st, before, revKept, changedMeanwhile, ran)
}

// afterCommand settles round st once its command ended (ran): the scan
// after it, what it wrote, and its finish.
func afterCommand(ctx context.Context, eng Engine, st *Started, before Scan, revKept uint64, changedMeanwhile bool, ran ranCommand) error {
	r := st.Round
	// What the command changed is checked whether or not it reported its
	// own round: a self-reported finish does not hide a protected write.
	after := eng.Scan()
	if why := after.Incomplete(); why != "" {
		return eng.ScanIncomplete(ctx, r, why, before, after)
	}
	// What the command wrote is judged before anything opens the store
	// again: opening it puts an edited read model back, which would hide
	// the edit from Written.
	written, err := eng.Written(before, after)
	if err != nil {
		return err
	}
	if err := eng.RoundEnded(r, after); err != nil {
		return err
	}
	cur, err := eng.Round(r.ID)
	if err != nil {
		return err
	}
	if cur.Status == records.RoundFinished { // the command reported itself
		return eng.Reported(context.WithoutCancel(ctx), r, written)
	}
	var out Outcome
	switch {
	case ctx.Err() != nil:
		out.Outcome, out.Summary = records.OutcomeFailed, "interrupted: "+ctx.Err().Error()
	case ran.startErr != nil:
		out.Outcome, out.Summary = records.OutcomePreflightFailed, "agent command did not start: "+ran.startErr.Error()
	case ran.waitErr != nil:
		out.Outcome, out.Summary = records.OutcomeFailed, "agent command: "+ran.waitErr.Error()
	case ran.code != 0:
		out.Outcome, out.Summary = records.OutcomeFailed, fmt.Sprintf("agent command exited %d", ran.code)
	default:
		revAfter, err := eng.GoalRev(r.Goal)
		if err != nil {
			return err
		}
		if len(written) > 0 || revAfter != revKept || changedMeanwhile {
			// A round never completes a monitor: it is due again at the
			// round's finish + its cadence.
			monitor := st.Todo != nil && st.Todo.Kind == records.KindMonitor
			out.Outcome, out.Done, out.Summary = records.OutcomeProgress, !monitor, "agent command exited 0 and changed the work tree or state"
		} else {
			out.Outcome, out.Summary = records.OutcomeNoChange, "agent command exited 0 and changed nothing"
		}
	}
	out, err = eng.Finish(context.WithoutCancel(ctx), r, out, written)
	if err != nil {
		return err
	}
	if out.Outcome == records.OutcomePreflightFailed {
		return errs.Usagef("command_failed", "%s", out.Summary)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: round %s was finished as failed and its todo released: %w", r.ID, ctx.Err())
	}
	return nil
}

// findCommand looks up the command name as exec would run it from dir: a
// name with a slash relative to dir, any other in PATH. Errors: it is not
// there or not executable.
func findCommand(dir, name, path string) error {
	if !strings.Contains(name, "/") {
		for _, d := range filepath.SplitList(path) {
			if d == "" || !filepath.IsAbs(d) {
				continue
			}
			if fi, err := os.Stat(filepath.Join(d, name)); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return nil
			}
		}
		return &exec.Error{Name: name, Err: exec.ErrNotFound}
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return &exec.Error{Name: name, Err: err}
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return &exec.Error{Name: name, Err: fs.ErrPermission}
	}
	return nil
}

// pathOf is PATH in env (the first one, as os.Getenv reads it).
func pathOf(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			return v
		}
	}
	return ""
}

// notStarted finishes round r preflight_failed (not charged) because its
// command could not start (err), and returns the usage error the loop
// ends with.
func notStarted(ctx context.Context, eng Engine, r *records.Round, err error) error {
	out, ferr := eng.Finish(context.WithoutCancel(ctx), r, Outcome{Outcome: records.OutcomePreflightFailed,
		Summary: "agent command did not start: " + err.Error()}, nil)
	if ferr != nil {
		return ferr
	}
	return errs.Usagef("command_failed", "%s", out.Summary)
}
