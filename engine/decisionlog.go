package engine

import (
	"encoding/json"
	"errors"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/loopx-dev/loopx/engine/declog"
	"github.com/loopx-dev/loopx/engine/rulebook"
	"github.com/loopx-dev/loopx/policies"
)

// Version is loopx's version, set at build time with
// -ldflags "-X github.com/loopx-dev/loopx/engine.Version=v1.2.3". The
// decision log records it as labels.version.
var Version = "dev"

// LogEntry is one line of .loopx/decisions.jsonl (declog.Entry, an OPA
// decision-log event) with the engine's request (LogInput) and quota
// summary; LoggedDecision reads the decision it records.
type LogEntry = declog.Entry[LogInput, QuotaSummary]

// LogCustom is what a decision-log line adds to OPA's fields: the stored
// input's hash, the store revision, the quota summary, decided_by.
type LogCustom = declog.Custom[QuotaSummary]

// decisionLog is the project's decision log with the engine's line types.
type decisionLog = declog.Log[LogInput, QuotaSummary]

// LogInput is the request part of a decision's input: Input without the
// kernel snapshot (input.state, in the stored input); every other field of
// Input is here (TestLogInput_IsInputWithoutState).
type LogInput struct {
	Query      string             `json:"query"`
	Now        string             `json:"now"`
	Goal       string             `json:"goal"`
	Agent      string             `json:"agent"`
	Health     Health             `json:"health"`
	Permission *PermissionRequest `json:"permission,omitempty"`
	// Claim and Answer are the requests of claim and gate_answer decisions.
	Claim  *ClaimFacts  `json:"claim,omitempty"`
	Answer *AnswerFacts `json:"answer,omitempty"`
}

// logInputOf is in without its kernel snapshot.
func logInputOf(in Input) LogInput {
	return LogInput{Query: in.Query, Now: in.Now, Goal: in.Goal, Agent: in.Agent, Health: in.Health,
		Permission: in.Permission, Claim: in.Claim, Answer: in.Answer}
}

// LoggedDecision is the decision loopx answered for the line le: its
// result interpreted as at decision time (verdict checked, allow, todo)
// with the id, request, quota and revisions added.
func LoggedDecision(le LogEntry) Decision {
	d := decisionFromValue(le.Result, le.Input.Query)
	d.DecisionID = le.DecisionID
	d.Query, d.Goal, d.Agent = le.Input.Query, le.Input.Goal, le.Input.Agent
	if d.Verdict != "run" {
		d.Todo = nil
	}
	d.Charge = d.Verdict == "run"
	d.Quota = le.Custom.Quota
	d.Revision = Revision{Spec: le.Bundles[declog.SpecBundle].Revision, Policy: le.Bundles[declog.PolicyBundle].Revision, State: le.Custom.State}
	if d.NextCheckAt != nil && *d.NextCheckAt == "" {
		d.NextCheckAt = nil
	}
	return d
}

// LogPath is the decision log of the project (.loopx/decisions.jsonl).
func (e *Engine) LogPath() string { return e.log.Path() }

// logDecision appends d, decided on in at now, to the decision log: the
// request without the snapshot on the line, the whole input stored beside
// it, and the policy and spec bundles it names (declog.Log.Append).
func (e *Engine) logDecision(d Decision, in Input, now time.Time) error {
	inRaw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	result, decidedBy := d.value, ""
	if result == nil {
		decidedBy = "loopx"
		if result, err = json.Marshal(outcomeOf(d)); err != nil {
			return err
		}
	}
	bundles := []declog.Bundle{{Name: declog.PolicyBundle, Revision: d.Revision.Policy, Files: e.policyBundleFiles(d.Revision.Policy)}}
	if e.spec != nil && d.Revision.Spec != "" {
		bundles = append(bundles, declog.Bundle{Name: declog.SpecBundle, Revision: d.Revision.Spec, Files: e.specBundleFiles(d.Revision.Spec)})
	}
	return e.log.Append(LogEntry{
		DecisionID: d.DecisionID, Revision: d.Revision.Policy,
		Path:   "loopx/" + policyArea(d.Query) + "/decision",
		Input:  logInputOf(in),
		Result: result, Erased: []string{declog.ErasedState}, Timestamp: now,
		Custom: LogCustom{State: in.State.Revision, Quota: d.Quota, DecidedBy: decidedBy},
	}, inRaw, bundles...)
}

// outcome is the shape of a query's entry-rule value (the policy's part of
// a Decision).
type outcome struct {
	Verdict     string   `json:"verdict"`
	Allow       bool     `json:"allow"`
	Reasons     []Reason `json:"reasons"`
	Todo        *TodoRef `json:"todo"`
	NextCheckAt *string  `json:"next_check_at"`
	Charge      bool     `json:"charge"`
}

func outcomeOf(d Decision) outcome {
	return outcome{Verdict: d.Verdict, Allow: d.Allow, Reasons: d.Reasons, Todo: d.Todo, NextCheckAt: d.NextCheckAt, Charge: d.Charge}
}

// policyBundleFiles gives the policy bundle at revision rev: every
// built-in module (all areas) and the user policies, under roots that
// leave loopx/spec to the spec bundle.
func (e *Engine) policyBundleFiles(rev string) func() (map[string][]byte, []string, error) {
	return func() (map[string][]byte, []string, error) {
		user, err := e.UserModules()
		if err != nil {
			user = nil // the decision is a policy_error deny; the bundle holds the built-in modules
		}
		if rulebook.Hash(user) != rev {
			user = nil
		}
		out := map[string][]byte{}
		roots := map[string]bool{"loopx/user": true}
		for p, src := range policies.Modules() {
			out[p] = []byte(src)
			roots[path.Dir(p)] = true
		}
		for _, m := range user {
			if !m.Test {
				out[filepath.ToSlash(m.Path)] = []byte(m.Source)
			}
		}
		return out, slices.Sorted(maps.Keys(roots)), nil
	}
}

// specBundleFiles gives the spec bundle at revision rev: the exported spec
// as loopx/spec/data.json (data.loopx.spec).
func (e *Engine) specBundleFiles(rev string) func() (map[string][]byte, []string, error) {
	return func() (map[string][]byte, []string, error) {
		if e.spec == nil || e.spec.Hash != rev {
			return nil, nil, errors.New("the spec of revision " + rev + " is not loaded")
		}
		return map[string][]byte{"loopx/spec/data.json": e.spec.JSON}, []string{"loopx/spec"}, nil
	}
}

// LogFilter selects decision-log entries for ReadLog. Zero fields match all.
type LogFilter struct {
	// Goal and Agent match the decision's goal and agent.
	Goal, Agent string
	// Verdict matches the result's verdict ("run", "skip", …).
	Verdict string
	// Query matches the query ("should_run", …).
	Query string
	// Since keeps entries with a timestamp at or after it (zero = all).
	Since time.Time
	// Limit keeps only the newest Limit entries (0 = all).
	Limit int
}

func (f LogFilter) match(le *LogEntry) bool {
	return (f.Goal == "" || le.Input.Goal == f.Goal) &&
		(f.Agent == "" || le.Input.Agent == f.Agent) &&
		(f.Query == "" || le.Input.Query == f.Query) &&
		(f.Since.IsZero() || !le.Timestamp.Before(f.Since)) &&
		(f.Verdict == "" || LoggedDecision(*le).Verdict == f.Verdict)
}

// ReadLog returns the decision-log entries that match f, oldest first,
// reading the rotated files and the current one. Lines that do not parse
// (a torn write, a foreign line) are skipped and counted in skipped. A
// project without a decision log has no entries and no error.
func (e *Engine) ReadLog(f LogFilter) (entries []LogEntry, skipped int, err error) {
	return e.log.Read(f.match, f.Limit)
}

// FindDecision returns the decision-log entry with this decision id,
// searching the current log first, then the rotated ones. A missing id is
// an errs.Usage error with code unknown_decision.
func (e *Engine) FindDecision(id string) (LogEntry, error) {
	le, err := e.log.Find(id)
	if errors.Is(err, declog.ErrNotFound) {
		return le, Usagef("unknown_decision", "no decision %s in the decision log %s (or its %d rotated files)", id, e.LogPath(), declog.Keep)
	}
	return le, err
}

// parseLogLine decodes one decision-log line: an OPA decision-log event as
// loopx writes it, or a line of loopx's earlier format (parseLegacyLine).
// ok is false for anything else (a torn write, a foreign line).
func parseLogLine(line []byte) (LogEntry, bool) {
	if le, ok := declog.Parse[LogInput, QuotaSummary](line); ok {
		return le, true
	}
	return parseLegacyLine(line)
}

// legacyLogEntry is a decision-log line of loopx before the OPA event
// format: the input without the snapshot, its hash, the whole decision as
// result, and revision as an object.
type legacyLogEntry struct {
	DecisionID string    `json:"decision_id"`
	Path       string    `json:"path"`
	Input      Input     `json:"input"`
	InputHash  string    `json:"input_hash"`
	Result     Decision  `json:"result"`
	Timestamp  time.Time `json:"timestamp"`
	Revision   Revision  `json:"revision"`
}

// parseLegacyLine reads a line of loopx's earlier format (revision an
// object, input_hash) as a LogEntry with Legacy set and no stored input;
// ok is false for anything else.
func parseLegacyLine(line []byte) (LogEntry, bool) {
	var old legacyLogEntry
	if json.Unmarshal(line, &old) != nil || old.DecisionID == "" || old.InputHash == "" {
		return LogEntry{}, false
	}
	res, err := json.Marshal(outcomeOf(old.Result))
	if err != nil {
		return LogEntry{}, false
	}
	in := logInputOf(old.Input)
	in.Claim, in.Answer = nil, nil // the earlier format had neither
	if in.Query == "" {
		in.Query = old.Result.Query
	}
	return LogEntry{DecisionID: old.DecisionID, Path: old.Path, Revision: old.Revision.Policy,
		Bundles: map[string]declog.BundleRevision{declog.PolicyBundle: {Revision: old.Revision.Policy}, declog.SpecBundle: {Revision: old.Revision.Spec}},
		Input:   in, Result: res, Timestamp: old.Timestamp,
		Custom: LogCustom{State: old.Revision.State, Quota: old.Result.Quota}, Legacy: true}, true
}
