// Package runround is the engine's side of `loopx run`: what
// the rounds of package agentloop's loop record — the start decision, the
// round's prompt, a finish after the change scan (writes outside the
// agent's scope are not progress, a gate opened meanwhile makes it
// no_change, a scan that cannot see everything fails the round) — through
// Engine, the functions the top engine package hands it. It never imports
// the top engine package.
package runround

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/mutating/agentloop"
	"github.com/loopx-dev/loopx/engine/mutating/audit"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/broker"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Options configure Run (`loopx run`).
type Options struct {
	Goal, Agent string
	// Cmd is the agent command and its arguments, run in the project root.
	Cmd []string
	// MaxRounds bounds the rounds run (0 = until the verdict is not run).
	MaxRounds int
	// Stdout and Stderr receive the command's output.
	Stdout, Stderr io.Writer
	// OnDecision is called with every start decision; OnReceipt with every
	// finish the loop settles (not those the command reported itself).
	OnDecision func(decision.Decision)
	OnReceipt  func(rounds.Receipt)
	// Caller is the process that asked for the rounds when it is not
	// this one (a loopx serve client running loopx run; zero: this
	// process): the rounds record it as their runner, the agent command
	// is its child (Spawn) and starts from its environment (Env).
	Caller Caller
}

// Caller is the process a server runs loopx run for.
type Caller struct {
	// PID is its process id (in this process's pid namespace, from the
	// socket's peer), 0 when this process asks for the rounds itself.
	PID int
	// Env is its environment (the agent command's, and the sandbox
	// layout's PATH and HOME).
	Env []string
	// Spawn starts the agent command as its child.
	Spawn agentloop.Spawner
	// Broker runs a confined agent's loopx call in this process, as the
	// round's agent (confined.Options.Run).
	Broker func(ctx context.Context, s *broker.Session, env []string) int
}

// Result sums up a Run.
type Result struct {
	// Rounds is how many rounds ran the command.
	Rounds int `json:"rounds"`
	// Last is the decision that ended the loop (nil when MaxRounds ended it).
	Last *decision.Decision `json:"last"`
	// Receipts are the finishes of the rounds run.
	Receipts []rounds.Receipt `json:"receipts"`
}

// Engine is what a run needs of the engine, as functions over one
// project (the top engine package fills them in).
type Engine struct {
	// StateDirName is the project's state directory (".loopx").
	StateDirName string
	// Start decides should_run and, on run, opens a round on its todo.
	Start func(ctx context.Context, goal, agent string) (rounds.StartResult, error)
	// Prompt is the bounded-turn prompt of the round st opened.
	Prompt func(st rounds.StartResult) (string, error)
	// Finish settles a round (a finished one: its stored receipt).
	Finish func(ctx context.Context, id string, req rounds.FinishRequest) (rounds.Receipt, error)
	// Scan is the change scan of the project.
	Scan func() trust.Scan
	// VerifyReadModel reports whether the read model is the store's.
	VerifyReadModel func() (bool, error)
	// ReadModel is the read model's path (in the anchor directory), named
	// as written when VerifyReadModel finds it edited during a round.
	ReadModel string
	// GoalRev is the revision of a goal in the store.
	GoalRev func(goal string) (uint64, error)
	// RenewLease renews the lease round r holds (agentloop.Engine's).
	RenewLease func(r *records.Round) (before, after uint64, ok bool)
	// Release gives the store (and its lock) back.
	Release func() error
	// Round is a stored round.
	Round func(id string) (records.Round, error)
	// CheckWrites is the denying permission decision of writing paths
	// (nil when allowed).
	CheckWrites func(ctx context.Context, goal, agent string, paths []string) (*decision.Decision, error)
	// RecordScopeViolation audits the writes paths outside the scope d
	// denied (only those: deniedPaths), with
	// the gate it raised for protected ones; before (nil: unknown) are the
	// adopted rules the round started under, which a reject of that gate
	// restores.
	RecordScopeViolation func(goal, agent, round string, paths []string, d *decision.Decision, before *records.Rules) (*records.Gate, error)
	// AdoptedRules are the adopted rules in effect (ok false: none yet),
	// read as each round starts.
	AdoptedRules func() (r records.Rules, ok bool, err error)
	// Audit appends an audit event in its own transaction.
	Audit func(ev records.Event) error
	// ProtectedSeen is the protected set as the last round left it (ok
	// false: none recorded yet); SawProtected records it as round ended.
	ProtectedSeen func() (p kernel.ProtectedSeen, ok bool, err error)
	SawProtected  func(round string, files map[string]string) error
	// RecordBetweenRounds audits that paths changed between rounds (by
	// whom unknown) and raises the goal's gate whose approval records now
	// as seen; it returns the gate.
	RecordBetweenRounds func(goal, round string, paths []string, now map[string]string) (*records.Gate, error)
}

// Run runs the loop of package agentloop over e with lo, reporting to o;
// it returns what the rounds run.
func Run(ctx context.Context, e Engine, o Options, lo agentloop.Options) (Result, error) {
	res := Result{Receipts: []rounds.Receipt{}}
	n, err := agentloop.Run(ctx, &loop{e: e, o: o, res: &res}, lo)
	res.Rounds = n
	return res, err
}

// loop is the engine as the run loop drives it (agentloop.Engine) for one
// Run: it reports decisions and receipts to o and res.
type loop struct {
	e   Engine
	o   Options
	res *Result
	st  rounds.StartResult // the last round started
	// before are the adopted rules st's round started under (nil: none).
	before *records.Rules
}

var _ agentloop.Engine = (*loop)(nil)

func (x *loop) Start(ctx context.Context) (*agentloop.Started, error) {
	st, err := x.e.Start(ctx, x.o.Goal, x.o.Agent)
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
	x.st, x.before = st, nil
	if x.e.AdoptedRules != nil {
		if r, ok, err := x.e.AdoptedRules(); err != nil {
			return nil, err
		} else if ok {
			x.before = &r
		}
	}
	return &agentloop.Started{Round: st.Round, Todo: st.Todo}, nil
}

// receipt records a receipt of the loop.
func (x *loop) receipt(rc rounds.Receipt) {
	x.res.Receipts = append(x.res.Receipts, rc)
	if x.o.OnReceipt != nil {
		x.o.OnReceipt(rc)
	}
}

func (x *loop) Prompt() (string, error) {
	return x.e.Prompt(x.st)
}

func (x *loop) Scan() agentloop.Scan { return x.e.Scan() }

// Written lists what the command changed, its commits included (trust.
// Changed); when git cannot read what a moved ref brings in, the round
// fails closed as after an incomplete scan (ScanIncomplete).
func (x *loop) Written(before, after agentloop.Scan) ([]string, error) {
	written, err := trust.Changed(before.(trust.Scan), after.(trust.Scan))
	if err != nil {
		why := "git cannot read what the refs moved during the round bring in: " + err.Error()
		return nil, x.ScanIncomplete(context.Background(), x.st.Round, why, before, after)
	}
	genuine, err := x.e.VerifyReadModel()
	if err != nil {
		return nil, err
	}
	if !genuine { // loopx's own state edited outside loopx during the round
		written = append(written, x.e.ReadModel)
	}
	return written, nil
}

// BetweenRounds compares the protected set before round r's command with
// the one the last round ended with: a file changed between rounds
// finishes r preflight_failed (not charged), is audited
// (scope_violation.between_rounds, naming the files, by whom unknown) with
// a gate a human answers (approve: the files as they are now are the ones
// seen; reject: nothing is recorded, and the next round stops again until
// they are restored or approved), and stops the loop with an errs.No
// refusal protected_changed_between_rounds.
func (x *loop) BetweenRounds(ctx context.Context, r *records.Round, before agentloop.Scan) error {
	e := &x.e
	if e.ProtectedSeen == nil {
		return nil
	}
	seen, ok, err := e.ProtectedSeen()
	if err != nil || !ok {
		return err
	}
	now := before.(trust.Scan).ProtectedDigests()
	changed := trust.ChangedDigests(seen.Files, now)
	if len(changed) == 0 {
		return nil
	}
	what := fmt.Sprintf("protected files changed between rounds, by whom unknown (since %s, before round %s ran its command): %s",
		since(seen.Round), r.ID, strings.Join(changed, ", "))
	rc, err := e.Finish(context.WithoutCancel(ctx), r.ID, rounds.FinishRequest{Agent: r.Agent, Outcome: records.OutcomePreflightFailed, Summary: what})
	if err != nil {
		return err
	}
	rc.Gate, err = e.RecordBetweenRounds(r.Goal, r.ID, changed, now)
	x.receipt(rc)
	if err != nil {
		return err
	}
	return errs.New(errs.No, "protected_changed_between_rounds", "round "+r.ID+" did not run: "+what+"; a human answers the gate (loopx gate list)")
}

// since names when the protected set was last seen: the end of round, or
// a human's approval ("" round).
func since(round string) string {
	if round == "" {
		return "a human approved them"
	}
	return "round " + round + " ended"
}

// RoundEnded records the protected set as round r's command left it.
func (x *loop) RoundEnded(r *records.Round, after agentloop.Scan) error {
	if x.e.SawProtected == nil {
		return nil
	}
	return x.e.SawProtected(r.ID, after.(trust.Scan).ProtectedDigests())
}

func (x *loop) GoalRev(goal string) (uint64, error) { return x.e.GoalRev(goal) }

func (x *loop) RenewLease(r *records.Round) (uint64, uint64, bool) {
	return x.e.RenewLease(r)
}

func (x *loop) Release() error { return x.e.Release() }

func (x *loop) Round(id string) (records.Round, error) { return x.e.Round(id) }

// ScanIncomplete fails round r because the change scan could not see
// everything (why): the round is finished failed (charged), a
// scope_violation.scan_incomplete event is audited (loopx review lists
// it), and Run stops with an errs.No refusal change_scan_incomplete. The
// protected set (loopx/ and the rest, hashed uncapped) is compared all the
// same when the command ran (before and after non-nil): a change there is
// a scope_violation with its gate (the adoption gate for a loosening edit
// of loopx/), as after a complete scan.
func (x *loop) ScanIncomplete(ctx context.Context, r *records.Round, why string, before, after agentloop.Scan) error {
	e := &x.e
	req := rounds.FinishRequest{Agent: r.Agent, Outcome: records.OutcomeFailed, Summary: "loopx cannot see what the agent command changed: " + why}
	rc, err := e.Finish(context.WithoutCancel(ctx), r.ID, req)
	if err != nil {
		return err
	}
	if err := e.Audit(records.Event{Kind: "scope_violation.scan_incomplete", Goal: r.Goal, Actor: r.Agent, Subject: r.ID, Message: why}); err != nil {
		x.receipt(rc)
		return err
	}
	if before != nil && after != nil {
		written := trust.ChangedProtected(before.(trust.Scan), after.(trust.Scan))
		if genuine, err := e.VerifyReadModel(); err == nil && !genuine {
			written = append(written, x.e.ReadModel)
		}
		if len(written) > 0 {
			denied, err := e.CheckWrites(context.WithoutCancel(ctx), r.Goal, r.Agent, written)
			if err != nil {
				x.receipt(rc)
				return err
			}
			if denied != nil {
				g, err := e.RecordScopeViolation(r.Goal, r.Agent, r.ID, deniedPaths(denied, written), denied, x.before)
				rc.Gate = g
				if err != nil {
					x.receipt(rc)
					return err
				}
			}
		}
	}
	x.receipt(rc)
	return errs.New(errs.No, "change_scan_incomplete", fmt.Sprintf("round %s failed: loopx cannot see what the agent command changed: %s", r.ID, why))
}

// PromptFailed finishes round r preflight_failed (not charged: no
// command ran) because its prompt file could not be written (err): a link
// found where it is written (.loopx/rounds or the file) is audited as an
// fs.link_refused event in r's goal. It returns err, a link as errs.No
// link_refused (the finish's error joined when that failed too), which
// stops Run: no round is left open.
func (x *loop) PromptFailed(ctx context.Context, r *records.Round, err error) error {
	e := &x.e
	req := rounds.FinishRequest{Agent: r.Agent, Outcome: records.OutcomePreflightFailed, Summary: "the round's prompt could not be written: " + err.Error()}
	rc, ferr := e.Finish(context.WithoutCancel(ctx), r.ID, req)
	if ferr == nil {
		x.receipt(rc)
	}
	if link, re := audit.LinkRefusal(err); re != nil {
		msg := "writing the round's prompt refused: " + errs.As(re).Message
		_ = e.Audit(records.Event{Kind: "fs.link_refused", Goal: r.Goal, Actor: "loopx", Subject: link, Message: msg, Data: map[string]any{"code": "link_refused", "round": r.ID}})
		err = re
	}
	if ferr != nil {
		return errors.Join(err, ferr)
	}
	return err
}

// Reported settles a round the command finished itself: its stored
// receipt, then writes outside the agent's scope are audited (and a gate
// raised for protected ones).
func (x *loop) Reported(ctx context.Context, r *records.Round, written []string) error {
	e := &x.e
	rc, err := e.Finish(ctx, r.ID, rounds.FinishRequest{})
	if err != nil {
		x.receipt(rc)
		return err
	}
	denied, err := e.CheckWrites(ctx, r.Goal, r.Agent, written)
	if err != nil || denied == nil {
		x.receipt(rc)
		return err
	}
	g, err := e.RecordScopeViolation(r.Goal, r.Agent, r.ID, deniedPaths(denied, written), denied, x.before)
	rc.Gate = g
	x.receipt(rc)
	return err
}

// Finish finishes a round the command did not finish itself: writes
// outside the agent's scope are not progress (failed, audited); a gate
// opened while the command ran makes it no_change (its work is not
// recorded as progress nor charged; the round still ends and frees its
// todo).
func (x *loop) Finish(ctx context.Context, r *records.Round, o agentloop.Outcome, written []string) (agentloop.Outcome, error) {
	e := &x.e
	req := rounds.FinishRequest{Agent: r.Agent, Outcome: o.Outcome, Summary: o.Summary, Done: o.Done}
	denied, err := e.CheckWrites(ctx, r.Goal, r.Agent, written)
	if err != nil {
		return o, err
	}
	if denied != nil { // writes outside the scope are not progress
		req.Outcome, req.Done = records.OutcomeFailed, false
		req.Summary = fmt.Sprintf("wrote outside its scope (%s): %s", strings.Join(deniedPaths(denied, written), ", "), denied.Reasons[0].Message)
	}
	rc, err := e.Finish(ctx, r.ID, req)
	if err == nil && denied != nil {
		g, gerr := e.RecordScopeViolation(r.Goal, r.Agent, r.ID, deniedPaths(denied, written), denied, x.before)
		if gerr != nil {
			x.receipt(rc)
			return o, gerr
		}
		rc.Gate = g
	}
	if re := errs.As(err); re != nil && re.Kind == errs.No && re.Code == "gate_violation" {
		req.Outcome, req.Done = records.OutcomeNoChange, false
		req.Summary = "not recorded as progress: " + re.Message
		rc, err = e.Finish(ctx, r.ID, req)
	}
	if err != nil {
		return o, err
	}
	x.receipt(rc)
	return agentloop.Outcome{Outcome: req.Outcome, Summary: req.Summary, Done: req.Done}, nil
}

// deniedPaths are the paths of written that d's reasons name (a
// permission reason about a path begins with it: "web/x.js is outside
// scope.write …"), in written's order: the writes a denied round is failed
// for, without the ones its scope allowed. When no reason names any of
// them (a user policy's own message), it is all of written: loopx cannot
// tell them apart.
func deniedPaths(d *decision.Decision, written []string) []string {
	var out []string
	for _, p := range written {
		for _, r := range d.Reasons {
			if strings.HasPrefix(r.Message, p+" ") {
				out = append(out, p)
				break
			}
		}
	}
	if len(out) == 0 {
		return written
	}
	return out
}
