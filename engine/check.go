package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/checkstate"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/policies"
)

// CheckState is the read-only snapshot of kernel state that `loopx check`
// lints (checkstate.State).
type CheckState = checkstate.State

// CheckState reads the snapshot `loopx check` lints (checkstate.Read) of
// the spec's goals. It never writes: a project without .loopx/state.db
// has an empty state (no store is created), and spec gates are not
// materialised. Errors: the store's (kernel.StoreError, lock timeout).
func (e *Engine) CheckState() (CheckState, error) {
	if _, err := os.Stat(filepath.Join(e.StateDir(), kernel.DBFile)); errors.Is(err, fs.ErrNotExist) {
		return checkstate.Empty(e.GoalIDs()), nil
	}
	var st CheckState
	err := e.view(func(tx *kernel.Tx) error {
		var err error
		st, err = checkstate.Read(tx, e.GoalIDs(), e.Now())
		return err
	})
	return st, err
}

// ReplayChange is a logged decision that is decided differently now.
type ReplayChange struct {
	DecisionID string    `json:"decision_id"`
	Timestamp  time.Time `json:"timestamp"`
	Query      string    `json:"query"`
	Goal       string    `json:"goal"`
	Agent      string    `json:"agent"`
	// Old is the logged verdict; New the verdict decided now.
	Old string `json:"old"`
	New string `json:"new"`
	// Rule, Code and Message are the new decision's first reason: the rule
	// that decides it now.
	Rule    string `json:"rule"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ReplayReport is the result of Replay.
type ReplayReport struct {
	// Since is the oldest timestamp replayed (nil = the whole log).
	Since *time.Time `json:"since"`
	// Decisions is how many logged decisions were re-decided.
	Decisions int `json:"decisions"`
	// Skipped counts log lines that could not be read (torn or foreign).
	Skipped int `json:"skipped"`
	// Changed lists the decisions whose verdict differs now, oldest first.
	Changed []ReplayChange `json:"changed"`
}

// Redecide decides a logged decision's request again, now, without
// appending to the decision log or changing the store: the current spec,
// policies (built-in and user) and kernel state (the log keeps the
// request, not the snapshot it saw). It returns the new decision and the
// store error, if any (the decision is then a fail-closed deny).
func (e *Engine) Redecide(ctx context.Context, le LogEntry) (Decision, error) {
	d, _, err := e.rerun(ctx, le)
	return d, err
}

// rerun decides le's request again now, over the current snapshot, without
// logging: the decision, the input it evaluated, and the store error.
func (e *Engine) rerun(ctx context.Context, le LogEntry) (Decision, Input, error) {
	req := logRequest(le)
	in, err := e.buildInput(req, e.Now())
	in.Claim = le.Input.Claim
	d := e.evaluate(ctx, req, in)
	e.finishDecision(&d, req, in)
	return d, in, err
}

func logRequest(le LogEntry) Request {
	return Request{Query: le.Input.Query, Goal: le.Input.Goal, Agent: le.Input.Agent, Permission: le.Input.Permission}
}

// Replay re-decides every logged decision at or after since (zero = all,
// current and rotated logs) like Redecide — side-effect free, with the
// current state read once per (query, goal, agent) — and lists each whose
// verdict changed. Errors: an unreadable decision log; an unusable store.
func (e *Engine) Replay(ctx context.Context, since time.Time) (ReplayReport, error) {
	rep := ReplayReport{Changed: []ReplayChange{}}
	if !since.IsZero() {
		s := since.UTC()
		rep.Since = &s
	}
	entries, skipped, err := e.ReadLog(LogFilter{Since: since})
	rep.Skipped = skipped
	if err != nil {
		return rep, err
	}
	now := e.Now()
	inputs := map[[3]string]Input{}
	for _, le := range entries {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		req := logRequest(le)
		key := [3]string{req.Query, req.Goal, req.Agent}
		in, ok := inputs[key]
		if !ok {
			var err error
			if in, err = e.buildInput(Request{Query: req.Query, Goal: req.Goal, Agent: req.Agent}, now); err != nil {
				return rep, err
			}
			inputs[key] = in
		}
		in.Permission, in.Claim = req.Permission, le.Input.Claim
		d := e.evaluate(ctx, req, in)
		rep.Decisions++
		old := LoggedDecision(le).Verdict
		if d.Verdict == old {
			continue
		}
		c := ReplayChange{DecisionID: le.DecisionID, Timestamp: le.Timestamp.UTC(), Query: req.Query, Goal: req.Goal,
			Agent: req.Agent, Old: old, New: d.Verdict}
		if len(d.Reasons) > 0 {
			c.Rule, c.Code, c.Message = d.Reasons[0].Rule, d.Reasons[0].Code, d.Reasons[0].Message
		}
		rep.Changed = append(rep.Changed, c)
	}
	return rep, nil
}

// QueryName maps a query as people type it ("should-run", "should_run",
// "permission") to the engine's name; ok is false for an unknown query.
func QueryName(q string) (string, bool) {
	q = strings.ReplaceAll(strings.TrimSpace(q), "-", "_")
	_, ok := policies.Queries[q]
	return q, ok
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
func (e *Engine) EvalInput(ctx context.Context, query string, raw []byte, goal, agent string) (Decision, Input, error) {
	q, ok := QueryName(query)
	if !ok {
		known := slices.Sorted(maps.Keys(policies.Queries))
		return Decision{}, Input{}, Usagef("unknown_query", "unknown query %q (known: %s)", query, strings.Join(known, ", "))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return Decision{}, Input{}, Usagef("bad_input", "the input is not a JSON object: %v", errText(err))
	}
	permRaw, hasPerm := top["permission"]
	delete(top, "permission")
	_, hasState := top["state"]
	rest, _ := json.Marshal(top)
	var in Input
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Decision{}, Input{}, Usagef("bad_input", "the input does not have the shape of a decision's input: %v", err)
	}
	in.Query = q
	if goal != "" {
		in.Goal = goal
	}
	if agent != "" {
		in.Agent = agent
	}
	now := e.Now()
	if in.Now == "" {
		in.Now = kernel.RFC3339(now)
	} else if t, err := time.Parse(time.RFC3339, in.Now); err == nil {
		now = t.UTC()
	} else {
		return Decision{}, Input{}, Usagef("bad_input", "input.now %q is not an RFC 3339 time", in.Now)
	}
	if hasPerm && string(permRaw) != "null" {
		pr, err := e.evalPermission(permRaw)
		if err != nil {
			return Decision{}, Input{}, err
		}
		in.Permission = pr
	}
	if in.Health.Spec == "" && e.specErr != nil {
		in.Health.Spec = specErrorText(e.specErr)
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
		in.State.Gates = []GateFacts{}
	}
	if in.State.Todos == nil {
		in.State.Todos = []TodoFacts{}
	}
	d := e.evaluate(ctx, req, in)
	e.finishDecision(&d, req, in)
	return d, in, storeErr
}

// evalPermission reads input.permission in the caller's form (normalised
// here) or the normalised form.
func (e *Engine) evalPermission(raw json.RawMessage) (*PermissionRequest, error) {
	var caller struct {
		Tool    string   `json:"tool"`
		Action  string   `json:"action"`
		Paths   []string `json:"paths"`
		Command string   `json:"command"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&caller); err == nil {
		return e.permissionRequest(PermissionInput{Tool: caller.Tool, Action: caller.Action, Paths: caller.Paths, Command: caller.Command}), nil
	}
	var pr PermissionRequest
	dec = json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pr); err != nil {
		return nil, Usagef("bad_input", "input.permission is neither {tool, action, paths, command} nor a normalised request: %v", err)
	}
	return &pr, nil
}

func errText(err error) string {
	if err == nil {
		return "null"
	}
	return err.Error()
}
