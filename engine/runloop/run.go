package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
)

// RunOptions configure Run (`loopx run`).
type RunOptions struct {
	Goal, Agent string
	// Cmd is the agent command and its arguments, run in the project root.
	Cmd []string
	// MaxRounds bounds the rounds run (0 = until the verdict is not run).
	MaxRounds int
	// Stdout and Stderr receive the command's output.
	Stdout, Stderr io.Writer
	// OnDecision is called with every start decision; OnReceipt with every
	// finish the loop settles (not those the command reported itself).
	OnDecision func(Decision)
	OnReceipt  func(Receipt)
}

// RunResult sums up a Run.
type RunResult struct {
	// Rounds is how many rounds ran the command.
	Rounds int `json:"rounds"`
	// Last is the decision that ended the loop (nil when MaxRounds ended it).
	Last *Decision `json:"last"`
	// Receipts are the finishes of the rounds run.
	Receipts []Receipt `json:"receipts"`
}

// Run loops round start → exec Cmd → round finish until the verdict is
// not "run" (design §7). Cmd gets LOOPX_ROUND, LOOPX_GOAL, LOOPX_AGENT,
// LOOPX_TODO and LOOPX_PROMPT_FILE; the store lock is released while it
// runs, so it may call loopx itself (e.g. `loopx round finish` to report its
// own outcome, which Run then respects). Otherwise the outcome is derived:
// a non-zero exit is failed; exit 0 with a change to the work tree or the
// goal's state is progress and marks the todo done; exit 0 with no change
// is no_change. Errors: a command that cannot start is an errs.Usage error (the
// round is finished preflight_failed, not charged); context cancellation
// finishes the current round failed and returns ctx.Err().
func (e *Engine) Run(ctx context.Context, o RunOptions) (RunResult, error) {
	res := RunResult{Receipts: []Receipt{}}
	if len(o.Cmd) == 0 {
		return res, Usagef("missing_command", "no agent command given (loopx run --goal G --agent A -- CMD…)")
	}
	defer e.Release()
	// The rounds started here record this process as their runner: its
	// descendants act as the round's agent whatever environment or
	// executable they use (ancestry.go).
	e.runner = RunnerID(os.Getpid())
	defer func() { e.runner = "" }()
	for o.MaxRounds <= 0 || res.Rounds < o.MaxRounds {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		st, err := e.StartRound(ctx, o.Goal, o.Agent)
		if o.OnDecision != nil && st.Decision.Verdict != "" { // no decision when the request was refused first (unknown goal)
			o.OnDecision(st.Decision)
		}
		if err != nil {
			return res, err
		}
		if st.Round == nil {
			d := st.Decision
			res.Last = &d
			return res, nil
		}
		res.Rounds++
		rc, err := e.runRound(ctx, o, st)
		if rc != nil {
			res.Receipts = append(res.Receipts, *rc)
			if o.OnReceipt != nil {
				o.OnReceipt(*rc)
			}
		}
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

func (e *Engine) runRound(ctx context.Context, o RunOptions, st StartResult) (*Receipt, error) {
	r := st.Round
	prompt, err := e.writePrompt(st)
	if err != nil {
		return nil, err
	}
	before := e.treeState()
	if before.incomplete != "" {
		// loopx cannot see what a command would change: it does not run
		// one (fail closed); the round is failed, charged and audited.
		return e.scanIncomplete(ctx, r, before.incomplete)
	}
	revBefore, err := e.goalRev(o.Goal)
	if err != nil {
		return nil, err
	}
	if err := e.Release(); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, o.Cmd[0], o.Cmd[1:]...)
	// The agent command gets its own process group, and stopping loopx stops
	// the whole group (SIGTERM, then SIGKILL after WaitDelay): an agent's
	// children must not keep working after its round was recorded.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Dir = e.root
	cmd.Stdout, cmd.Stderr, cmd.Stdin = o.Stdout, o.Stderr, nil
	cmd.Env = append(os.Environ(), "LOOPX_ROUND="+r.ID, "LOOPX_GOAL="+r.Goal, "LOOPX_AGENT="+r.Agent,
		"LOOPX_TODO="+r.Todo, "LOOPX_PROMPT_FILE="+prompt, "LOOPX_PROJECT="+e.root)
	keep := e.keepLease(r, st.Todo, revBefore) // runlease.go
	runErr := cmd.Run()
	if ctx.Err() != nil && cmd.Process != nil {
		// Members of the group that ignored SIGTERM (or outlived their
		// leader) must not keep working after the round is recorded.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	revKept, changedMeanwhile := keep()

	// What the command changed is checked whether or not it reported its
	// own round: a self-reported finish does not hide a protected write.
	after := e.treeState()
	if after.incomplete != "" {
		return e.scanIncomplete(ctx, r, after.incomplete)
	}
	written := changedPaths(before, after)
	genuine, err := e.VerifyReadModel()
	if err != nil {
		return nil, err
	}
	if !genuine { // loopx's own state edited outside loopx during the round
		written = append(written, StateDirName+"/cache/readmodel.json")
	}
	cur, err := e.Round(r.ID)
	if err != nil {
		return nil, err
	}
	if cur.Status == kernel.RoundFinished { // the command reported itself
		rc, err := e.FinishRound(context.WithoutCancel(ctx), r.ID, FinishRequest{})
		if err != nil {
			return &rc, err
		}
		denied, err := e.checkWrites(context.WithoutCancel(ctx), r.Goal, r.Agent, written)
		if err != nil || denied == nil {
			return &rc, err
		}
		g, err := e.recordScopeViolation(r.Goal, r.Agent, r.ID, written, denied)
		rc.Gate = g
		return &rc, err
	}
	req := FinishRequest{Agent: r.Agent}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		req.Outcome, req.Summary = kernel.OutcomeFailed, "interrupted: "+ctx.Err().Error()
	case runErr != nil && !errors.As(runErr, &exitErr):
		req.Outcome, req.Summary = kernel.OutcomePreflightFailed, "agent command did not start: "+runErr.Error()
	case runErr != nil:
		req.Outcome, req.Summary = kernel.OutcomeFailed, fmt.Sprintf("agent command exited %d", exitErr.ExitCode())
	default:
		revAfter, err := e.goalRev(o.Goal)
		if err != nil {
			return nil, err
		}
		if len(written) > 0 || revAfter != revKept || changedMeanwhile {
			req.Outcome, req.Done, req.Summary = kernel.OutcomeProgress, true, "agent command exited 0 and changed the work tree or state"
		} else {
			req.Outcome, req.Summary = kernel.OutcomeNoChange, "agent command exited 0 and changed nothing"
		}
	}
	denied, err := e.checkWrites(context.WithoutCancel(ctx), r.Goal, r.Agent, written)
	if err != nil {
		return nil, err
	}
	if denied != nil { // writes outside the scope are not progress
		req.Outcome, req.Done = kernel.OutcomeFailed, false
		req.Summary = fmt.Sprintf("wrote outside its scope (%s): %s", strings.Join(written, ", "), denied.Reasons[0].Message)
	}
	rc, err := e.FinishRound(context.WithoutCancel(ctx), r.ID, req)
	if err == nil && denied != nil {
		g, gerr := e.recordScopeViolation(r.Goal, r.Agent, r.ID, written, denied)
		if gerr != nil {
			return &rc, gerr
		}
		rc.Gate = g
	}
	if re := errs.As(err); re != nil && re.Kind == errs.No && re.Code == "gate_violation" {
		// A gate opened while the command ran: its work is not recorded as
		// progress nor charged; the round still ends and frees its todo.
		req.Outcome, req.Done = kernel.OutcomeNoChange, false
		req.Summary = "not recorded as progress: " + re.Message
		rc, err = e.FinishRound(context.WithoutCancel(ctx), r.ID, req)
	}
	if err != nil {
		return nil, err
	}
	if req.Outcome == kernel.OutcomePreflightFailed {
		return &rc, Usagef("command_failed", "%s", req.Summary)
	}
	if ctx.Err() != nil {
		return &rc, fmt.Errorf("interrupted: round %s was finished as failed and its todo released: %w", r.ID, ctx.Err())
	}
	return &rc, nil
}

func (e *Engine) goalRev(goal string) (uint64, error) {
	var rev uint64
	err := e.view(func(tx *kernel.Tx) error {
		g, err := tx.Goal(goal)
		rev = g.Rev
		return err
	})
	return rev, err
}

// writePrompt writes the bounded-turn prompt of a started round to
// .loopx/rounds/<round>.md and returns its path (the prompt builder of
// `loopx prompt`, see prompt.go).
func (e *Engine) writePrompt(st StartResult) (string, error) { return e.writeRoundPrompt(st) }

// scanIncomplete fails round r because the change scan could not see
// everything (why): the round is finished failed (charged), a
// scope_violation.scan_incomplete event is audited (loopx review lists it), and Run
// stops with an errs.No refusal change_scan_incomplete.
func (e *Engine) scanIncomplete(ctx context.Context, r *kernel.Round, why string) (*Receipt, error) {
	req := FinishRequest{Agent: r.Agent, Outcome: kernel.OutcomeFailed, Summary: "loopx cannot see what the agent command changed: " + why}
	rc, err := e.FinishRound(context.WithoutCancel(ctx), r.ID, req)
	if err != nil {
		return nil, err
	}
	if err := e.update(func(tx *kernel.Tx) error {
		return tx.AppendEvent(kernel.Event{Kind: "scope_violation.scan_incomplete", Goal: r.Goal, Actor: r.Agent, Subject: r.ID, Message: why})
	}); err != nil {
		return &rc, err
	}
	return &rc, refused("change_scan_incomplete", fmt.Sprintf("round %s failed: loopx cannot see what the agent command changed: %s", r.ID, why), nil)
}
