package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

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
// is no_change. Errors: a command that cannot start is a *UsageError (the
// round is finished preflight_failed, not charged); context cancellation
// finishes the current round failed and returns ctx.Err().
func (e *Engine) Run(ctx context.Context, o RunOptions) (RunResult, error) {
	var res RunResult
	if len(o.Cmd) == 0 {
		return res, Usagef("missing_command", "no agent command given (loopx run --goal G --agent A -- CMD…)")
	}
	defer e.Release()
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
	before := e.treeFingerprint()
	revBefore, err := e.goalRev(o.Goal)
	if err != nil {
		return nil, err
	}
	if err := e.Release(); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, o.Cmd[0], o.Cmd[1:]...)
	cmd.Dir = e.root
	cmd.Stdout, cmd.Stderr, cmd.Stdin = o.Stdout, o.Stderr, nil
	cmd.Env = append(os.Environ(), "LOOPX_ROUND="+r.ID, "LOOPX_GOAL="+r.Goal, "LOOPX_AGENT="+r.Agent,
		"LOOPX_TODO="+r.Todo, "LOOPX_PROMPT_FILE="+prompt, "LOOPX_PROJECT="+e.root)
	keep := e.keepLease(r, st.Todo, revBefore) // runlease.go
	runErr := cmd.Run()
	revKept, changedMeanwhile := keep()

	cur, err := e.Round(r.ID)
	if err != nil {
		return nil, err
	}
	if cur.Status == kernel.RoundFinished { // the command reported itself
		rc, err := e.FinishRound(context.WithoutCancel(ctx), r.ID, FinishRequest{})
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
		if e.treeFingerprint() != before || revAfter != revKept || changedMeanwhile {
			req.Outcome, req.Done, req.Summary = kernel.OutcomeProgress, true, "agent command exited 0 and changed the work tree or state"
		} else {
			req.Outcome, req.Summary = kernel.OutcomeNoChange, "agent command exited 0 and changed nothing"
		}
	}
	rc, err := e.FinishRound(context.WithoutCancel(ctx), r.ID, req)
	var re *RefusedError
	if errors.As(err, &re) && re.Code == "gate_violation" {
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
		return &rc, ctx.Err()
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

// treeFingerprint hashes the names, sizes and modification times of the
// project's files outside .loopx/, .git/ and node_modules/ (at most 50,000
// files), to tell whether an agent command changed the work tree.
func (e *Engine) treeFingerprint() string {
	h := sha256.New()
	n := 0
	_ = filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case StateDirName, ".git", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if n++; n > 50000 {
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err == nil {
			fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, fi.Size(), fi.ModTime().UnixNano())
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

// writePrompt writes the bounded-turn prompt of a started round to
// .loopx/rounds/<round>.md and returns its path (the prompt builder of
// `loopx prompt`, see prompt.go).
func (e *Engine) writePrompt(st StartResult) (string, error) { return e.writeRoundPrompt(st) }
