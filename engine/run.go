package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopx-dev/loopx/engine/lease"
	"github.com/loopx-dev/loopx/engine/runloop"
	"github.com/loopx-dev/loopx/engine/trust"
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

// Run is `loopx run`: the loop of package runloop (round start → exec Cmd
// → round finish until the verdict is not "run", design §7) over this
// engine. Cmd gets LOOPX_ROUND, LOOPX_GOAL, LOOPX_AGENT, LOOPX_TODO,
// LOOPX_PROMPT_FILE and LOOPX_PROJECT; the store lock is released while it
// runs, so it may call loopx itself (e.g. `loopx round finish` to report
// its own outcome, which Run then respects). Errors: no command, or one
// that cannot start, is an errs.Usage error (missing_command;
// command_failed: the round is finished preflight_failed, not charged); a
// scan that cannot see every change is an errs.No refusal
// change_scan_incomplete (the
// round failed, charged and audited); context cancellation finishes the
// current round failed and returns an error wrapping ctx.Err().
func (e *Engine) Run(ctx context.Context, o RunOptions) (RunResult, error) {
	res := RunResult{Receipts: []Receipt{}}
	defer e.Release()
	// The rounds started here record this process as their runner: its
	// descendants act as the round's agent whatever environment or
	// executable they use (ancestry.go).
	e.runner = trust.RunnerID(os.Getpid())
	defer func() { e.runner = "" }()
	n, err := runloop.Run(ctx, &runRounds{e: e, o: o, res: &res}, runloop.Options{Cmd: o.Cmd, Dir: e.root,
		PromptDir: filepath.Join(e.StateDir(), "rounds"), MaxRounds: o.MaxRounds, LeaseTTL: DefaultLeaseTTL,
		Stdout: o.Stdout, Stderr: o.Stderr})
	res.Rounds = n
	return res, err
}

// runRounds is the engine as the run loop drives it (runloop.Engine) for
// one Run: it reports decisions and receipts to o and res.
type runRounds struct {
	e   *Engine
	o   RunOptions
	res *RunResult
	st  StartResult // the last round started
}

var _ runloop.Engine = (*runRounds)(nil)

func (x *runRounds) Start(ctx context.Context) (*runloop.Started, error) {
	st, err := x.e.StartRound(ctx, x.o.Goal, x.o.Agent)
	if x.o.OnDecision != nil && st.Decision.Verdict != "" { // no decision when the request was refused first (unknown goal)
		x.o.OnDecision(st.Decision)
	}
	if err != nil {
		return nil, err
	}
	if st.Round == nil {
		d := st.Decision
		x.res.Last = &d
		return nil, nil
	}
	x.st = st
	return &runloop.Started{Round: st.Round, Todo: st.Todo}, nil
}

// receipt records a receipt of the loop.
func (x *runRounds) receipt(rc Receipt) {
	x.res.Receipts = append(x.res.Receipts, rc)
	if x.o.OnReceipt != nil {
		x.o.OnReceipt(rc)
	}
}

func (x *runRounds) Prompt() (string, error) {
	st := x.st
	p, err := x.e.buildPrompt(promptInput{goal: st.Round.Goal, agent: st.Round.Agent, decision: st.Decision, todo: st.Todo, round: st.Round})
	return p.Text, err
}

func (x *runRounds) Scan() runloop.Scan { return x.e.scanner().Scan() }

func (x *runRounds) Written(before, after runloop.Scan) ([]string, error) {
	written := trust.Changed(before.(trust.Scan), after.(trust.Scan))
	genuine, err := x.e.VerifyReadModel()
	if err != nil {
		return nil, err
	}
	if !genuine { // loopx's own state edited outside loopx during the round
		written = append(written, StateDirName+"/cache/readmodel.json")
	}
	return written, nil
}

func (x *runRounds) GoalRev(goal string) (uint64, error) { return x.e.goalRev(goal) }

func (x *runRounds) RenewLease(r *kernel.Round) (uint64, uint64, bool) {
	return x.e.renewRoundLease(r)
}

func (x *runRounds) Release() error { return x.e.Release() }

func (x *runRounds) Round(id string) (kernel.Round, error) { return x.e.Round(id) }

// ScanIncomplete fails round r because the change scan could not see
// everything (why): the round is finished failed (charged), a
// scope_violation.scan_incomplete event is audited (loopx review lists
// it), and Run stops with an errs.No refusal change_scan_incomplete. The
// protected set (loopx/ and the rest, hashed uncapped) is compared all the
// same when the command ran (before and after non-nil): a change there is
// a scope_violation with its gate (the adoption gate for a loosening edit
// of loopx/), as after a complete scan.
func (x *runRounds) ScanIncomplete(ctx context.Context, r *kernel.Round, why string, before, after runloop.Scan) error {
	e := x.e
	req := FinishRequest{Agent: r.Agent, Outcome: kernel.OutcomeFailed, Summary: "loopx cannot see what the agent command changed: " + why}
	rc, err := e.FinishRound(context.WithoutCancel(ctx), r.ID, req)
	if err != nil {
		return err
	}
	if err := e.update(func(tx *kernel.Tx) error {
		return tx.AppendEvent(kernel.Event{Kind: "scope_violation.scan_incomplete", Goal: r.Goal, Actor: r.Agent, Subject: r.ID, Message: why})
	}); err != nil {
		x.receipt(rc)
		return err
	}
	if before != nil && after != nil {
		written := trust.ChangedProtected(before.(trust.Scan), after.(trust.Scan))
		if genuine, err := e.VerifyReadModel(); err == nil && !genuine {
			written = append(written, StateDirName+"/cache/readmodel.json")
		}
		if len(written) > 0 {
			denied, err := e.checkWrites(context.WithoutCancel(ctx), r.Goal, r.Agent, written)
			if err != nil {
				x.receipt(rc)
				return err
			}
			if denied != nil {
				g, err := e.recordScopeViolation(r.Goal, r.Agent, r.ID, written, denied)
				rc.Gate = g
				if err != nil {
					x.receipt(rc)
					return err
				}
			}
		}
	}
	x.receipt(rc)
	return refused("change_scan_incomplete", fmt.Sprintf("round %s failed: loopx cannot see what the agent command changed: %s", r.ID, why), nil)
}

// Reported settles a round the command finished itself: its stored
// receipt, then writes outside the agent's scope are audited (and a gate
// raised for protected ones).
func (x *runRounds) Reported(ctx context.Context, r *kernel.Round, written []string) error {
	e := x.e
	rc, err := e.FinishRound(ctx, r.ID, FinishRequest{})
	if err != nil {
		x.receipt(rc)
		return err
	}
	denied, err := e.checkWrites(ctx, r.Goal, r.Agent, written)
	if err != nil || denied == nil {
		x.receipt(rc)
		return err
	}
	g, err := e.recordScopeViolation(r.Goal, r.Agent, r.ID, written, denied)
	rc.Gate = g
	x.receipt(rc)
	return err
}

// Finish finishes a round the command did not finish itself: writes
// outside the agent's scope are not progress (failed, audited); a gate
// opened while the command ran makes it no_change (its work is not
// recorded as progress nor charged; the round still ends and frees its
// todo).
func (x *runRounds) Finish(ctx context.Context, r *kernel.Round, o runloop.Outcome, written []string) (runloop.Outcome, error) {
	e := x.e
	req := FinishRequest{Agent: r.Agent, Outcome: o.Outcome, Summary: o.Summary, Done: o.Done}
	denied, err := e.checkWrites(ctx, r.Goal, r.Agent, written)
	if err != nil {
		return o, err
	}
	if denied != nil { // writes outside the scope are not progress
		req.Outcome, req.Done = kernel.OutcomeFailed, false
		req.Summary = fmt.Sprintf("wrote outside its scope (%s): %s", strings.Join(written, ", "), denied.Reasons[0].Message)
	}
	rc, err := e.FinishRound(ctx, r.ID, req)
	if err == nil && denied != nil {
		g, gerr := e.recordScopeViolation(r.Goal, r.Agent, r.ID, written, denied)
		if gerr != nil {
			x.receipt(rc)
			return o, gerr
		}
		rc.Gate = g
	}
	if re := errs.As(err); re != nil && re.Kind == errs.No && re.Code == "gate_violation" {
		req.Outcome, req.Done = kernel.OutcomeNoChange, false
		req.Summary = "not recorded as progress: " + re.Message
		rc, err = e.FinishRound(ctx, r.ID, req)
	}
	if err != nil {
		return o, err
	}
	x.receipt(rc)
	return runloop.Outcome{Outcome: req.Outcome, Summary: req.Summary, Done: req.Done}, nil
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

// renewRoundLease renews the lease round r holds on its todo, if it still
// holds it: version +1, expires_at = now + TTL. It returns the goal's
// revision before and after the renewal and whether it renewed.
func (e *Engine) renewRoundLease(r *kernel.Round) (before, after uint64, ok bool) {
	err := e.update(func(tx *kernel.Tx) error {
		t, err := tx.Todo(r.Todo)
		if err != nil {
			return err
		}
		l := t.Lease
		if l == nil || l.Released || l.Holder != r.Agent || l.Round != r.ID || !l.LiveAt(tx.Now()) {
			return nil
		}
		g, err := tx.Goal(r.Goal)
		if err != nil {
			return err
		}
		before = g.Rev
		nl := lease.Renew(*l, tx.Now(), lease.TTL(l, 0, DefaultLeaseTTL))
		t.Lease = &nl
		data := lease.Data(&nl)
		data["round"] = r.ID
		if err := e.putLease(tx, t, "todo.lease_renewed", r.Agent, data); err != nil {
			return err
		}
		after, ok = tx.Revision(), true
		return nil
	})
	if err != nil {
		return 0, 0, false
	}
	return before, after, ok
}
