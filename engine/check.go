package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/lintstate"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
)

// CheckState reads the snapshot `loopx check` lints (lintstate.Read) of
// the spec's goals. It never writes: a project without .loopx/state.db
// has an empty state (no store is created), and spec gates are not
// materialised. Errors: the store's (kernel.StoreError, lock timeout).
func (e *Engine) CheckState() (lintstate.State, error) {
	if _, err := os.Stat(filepath.Join(e.StateDir(), kernel.DBFile)); errors.Is(err, fs.ErrNotExist) {
		return lintstate.Empty(e.GoalIDs()), nil
	}
	var st lintstate.State
	err := e.view(func(tx *kernel.Tx) error {
		var err error
		st, err = lintstate.Read(tx, e.GoalIDs(), e.Now())
		return err
	})
	return st, err
}

// rerun decides le's request again now, over the current snapshot, without
// logging: the decision, the input it evaluated, and the store error.
func (e *Engine) rerun(ctx context.Context, le decision.LogEntry) (decision.Decision, input.Input, error) {
	req := logRequest(le)
	in, err := e.buildInput(req, e.Now())
	in.Claim = le.Input.Claim
	d := e.evaluate(ctx, req, in)
	e.finishDecision(&d, req, in)
	return d, in, err
}

func logRequest(le decision.LogEntry) Request {
	return Request{Query: decision.Named(le.Input.Query), Goal: le.Input.Goal, Agent: le.Input.Agent, Permission: le.Input.Permission}
}

// Replay re-decides every logged decision at or after since (zero = all,
// current and rotated logs) under the current spec and policies, side-effect
// free, and lists each whose verdict changed (decision.Replay). Each
// decision is evaluated on its stored input (.loopx/inputs/<hash>.json,
// what was known then); a line whose input was pruned, altered, or that
// predates stored inputs is not replayable (decision.ErrNotReplayable),
// never re-decided over today's state. With againstNow each is instead
// re-decided over the current state, read once per (query, goal, agent).
// Errors: an unreadable decision log; an unusable store (againstNow).
func (e *Engine) Replay(ctx context.Context, since time.Time, againstNow bool) (decision.ReplayReport, error) {
	entries, skipped, err := e.ReadLog(decision.LogFilter{Since: since})
	if !againstNow {
		return decision.Replay(ctx, since, entries, skipped, err, func(le decision.LogEntry) (decision.Decision, error) {
			in, state := e.storedInput(le)
			switch state {
			case "stored":
			case "altered":
				return decision.Decision{}, decision.ErrInputAltered
			default:
				return decision.Decision{}, decision.ErrNotReplayable
			}
			return e.evaluate(ctx, logRequest(le), in), nil
		})
	}
	now := e.Now()
	inputs := map[[3]string]input.Input{}
	return decision.Replay(ctx, since, entries, skipped, err, func(le decision.LogEntry) (decision.Decision, error) {
		req := logRequest(le)
		key := [3]string{req.Query.Name, req.Goal, req.Agent}
		in, ok := inputs[key]
		if !ok {
			var err error
			if in, err = e.buildInput(Request{Query: req.Query, Goal: req.Goal, Agent: req.Agent}, now); err != nil {
				return decision.Decision{}, err
			}
			inputs[key] = in
		}
		in.Permission, in.Claim = req.Permission, le.Input.Claim
		return e.evaluate(ctx, req, in), nil
	})
}

// storedInput is the input le's decision evaluated, read from its stored
// file, with the file's state (decision.StoredInput): "stored" when it is
// there unaltered and parses, "altered" when its SHA-256 is not the one
// the log line names, else why there is none ("none", "pruned", …).
func (e *Engine) storedInput(le decision.LogEntry) (input.Input, string) {
	var in input.Input
	if _, state := decision.StoredInput(le, e.StateDir(), scaffold.StateDirName); state != "stored" {
		return in, state
	}
	b, err := os.ReadFile(le.InputPath(e.StateDir()))
	if err != nil {
		return in, "pruned"
	}
	if json.Unmarshal(b, &in) != nil {
		return in, "altered"
	}
	return in, "stored"
}

// EvalInput evaluates query on a hand-written input (`loopx policy eval`)
// with the current spec and policies, without logging the decision or
// changing the store. raw is a JSON object shaped like Input; unknown
// fields are refused. goal and agent, when set, replace input.goal and
// input.agent; a missing now is the engine's clock; a missing state is the
// current kernel snapshot for (goal, agent) at that instant. permission
// may be given as a caller asks it ({tool, action, paths: ["a.go"],
// command}; normalised like Permission does) or already normalised
// (PermissionRequest with actions and commands). It returns the decision
// and the input evaluated. Errors: errs.Usage for an unknown query or a
// malformed input; the store's error when the snapshot cannot be read.
func (e *Engine) EvalInput(ctx context.Context, name string, raw []byte, goal, agent string) (decision.Decision, input.Input, error) {
	q, err := rulebook.CheckQuery(name)
	if err != nil {
		return decision.Decision{}, input.Input{}, err
	}
	in, now, permRaw, hasState, err := input.Parse(raw, q.Name, goal, agent, e.Now())
	if err != nil {
		return decision.Decision{}, input.Input{}, err
	}
	if permRaw != nil {
		call, pr, err := toolcall.ReadRequest(permRaw)
		if err != nil {
			return decision.Decision{}, input.Input{}, err
		}
		if call != nil {
			pr = toolcall.Read(e.root, e.loopxStateDir(), *call)
		}
		in.Permission = pr
	}
	if in.Health.Spec == "" && e.rules.specErr != nil {
		in.Health.Spec = errs.Summary(e.rules.specErr)
	}
	req := Request{Query: q, Goal: in.Goal, Agent: in.Agent, Permission: in.Permission}
	var storeErr error
	if !hasState {
		built, err := e.buildInput(req, now)
		in.State, storeErr = built.State, err
		if in.Health.Store == "" {
			in.Health.Store = built.Health.Store
		}
	}
	if in.State.Gates == nil {
		in.State.Gates = []input.GateFacts{}
	}
	if in.State.Todos == nil {
		in.State.Todos = []input.TodoFacts{}
	}
	d := e.evaluate(ctx, req, in)
	e.finishDecision(&d, req, in)
	return d, in, storeErr
}
