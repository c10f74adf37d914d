package engine

import (
	"context"
	"os"
	"path/filepath"

	"github.com/loopx-dev/loopx/engine/mutating/agentloop"
	"github.com/loopx-dev/loopx/engine/mutating/confined"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/runround"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// Run is `loopx run`: the loop of package agentloop (round start → exec Cmd
// → round finish until the verdict is not "run") over this
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
func (e *Engine) Run(ctx context.Context, o runround.Options) (runround.Result, error) {
	defer e.Release()
	// The rounds started here record this process as their runner: its
	// descendants act as the round's agent whatever environment or
	// executable they use (ancestry.go).
	runner := os.Getpid()
	if o.Caller.PID > 0 {
		// A server runs the loop for its client: the client and its
		// children (the agent command) are the round's processes.
		runner = o.Caller.PID
	}
	e.runner = trust.RunnerID(runner)
	defer func() { e.runner = "" }()
	wall, err := e.wall(o)
	if err != nil {
		return runround.Result{}, err
	}
	return runround.Run(ctx, runround.Engine{StateDirName: scaffold.StateDirName, Start: e.StartRound, Finish: e.finishRun,
		Prompt: func(st rounds.StartResult) (string, error) {
			p, err := e.buildPrompt(promptInput{goal: st.Round.Goal, agent: st.Round.Agent, decision: st.Decision, todo: st.Todo, round: st.Round})
			return p.Text, err
		},
		Scan: func() trust.Scan { return e.scanner().Scan() }, VerifyReadModel: e.VerifyReadModel, ReadModel: e.sess.readModelPath(), GoalRev: e.goalRev,
		RenewLease: e.renewRoundLease, Release: e.Release, Round: e.Round, CheckWrites: e.checkWrites,
		RecordScopeViolation: e.recordScopeViolation, AdoptedRules: e.adoptedRules,
		Audit:         func(ev records.Event) error { return e.update(func(tx *kernel.Tx) error { return tx.AppendEvent(ev) }) },
		ProtectedSeen: e.protectedSeen, SawProtected: e.sawProtected, RecordBetweenRounds: e.recordBetweenRounds,
	}, o, agentloop.Options{Cmd: o.Cmd, Dir: e.root, PromptDir: filepath.Join(e.StateDir(), "rounds"), MaxRounds: o.MaxRounds,
		LeaseTTL: rounds.DefaultLeaseTTL, Stdout: o.Stdout, Stderr: o.Stderr, Wall: wall, Env: o.Caller.Env, Spawn: o.Caller.Spawn})
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
func (e *Engine) renewRoundLease(r *records.Round) (before, after uint64, ok bool) {
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
		nl := lease.Renew(*l, tx.Now(), lease.TTL(l, 0, rounds.DefaultLeaseTTL))
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

// wall is the confinement of the agent command spec field
// project.sandbox chooses (confined.ForRun), audited in this project.
func (e *Engine) wall(o runround.Options) (agentloop.Wall, error) {
	var sb specs.Sandbox
	if e.rules.spec != nil {
		sb = e.rules.spec.Spec.Project.Sandbox
	}
	audit := func(ev records.Event) error { return e.update(func(tx *kernel.Tx) error { return tx.AppendEvent(ev) }) }
	return confined.ForRun(sb, confined.Options{Root: e.root, Audit: func(ev records.Event) { _ = audit(ev) }, Env: o.Caller.Env, Run: o.Caller.Broker}, o.Goal, o.Agent, o.Stderr, audit)
}

// finishRun is FinishRound for `loopx run`: the summary loopx writes of an
// agent command's round (its exit, the paths it wrote outside its scope,
// an error) is clipped to what a round's summary may hold
// (inert.MaxText) rather than refused, so a round with ten thousand
// denied paths still ends.
func (e *Engine) finishRun(ctx context.Context, id string, req rounds.FinishRequest) (rounds.Receipt, error) {
	req.Summary = inert.Clip(req.Summary, true)
	return e.FinishRound(ctx, id, req)
}
