// Package decision is the answer to a query and its line in
// the decision log: the Decision a policy's entry-rule value is read into
// (verdicts checked per query, a wrong shape failing closed as a deny),
// the revisions it saw, the request part of its input that the log keeps
// (LogInput), reading a logged line back into the decision answered then
// (Logged, loopx's earlier line format included), comparing two
// decisions (Compare) and what `loopx explain` shows beside the re-run
// (Explanation, the stored input's state, the `opa eval` line that
// reproduces a logged result), and the error of a mutation a decision
// refused (Refusal, GateViolation). It evaluates nothing: the top engine package
// prepares and evaluates the policies.
package decision

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/engine/deciding/decisionlog"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/internal/regularfile"
)

// maxInputBytes bounds a stored decision input read back for explain.
const maxInputBytes = 256 << 20

// Decision is the answer to a query. Policies produce Verdict,
// Allow, Reasons, Todo, NextCheckAt and Charge (the value of the query's entry
// rule, e.g. data.loopx.run.decision); the engine adds the id, the request,
// the quota summary and the revisions.
type Decision struct {
	// DecisionID is a ULID, unique per decision; `loopx explain ID` finds it
	// in the decision log.
	DecisionID string `json:"decision_id"`
	// Query is the query's name (query.Query.Name): "should_run",
	// "permission", "claim" or "gate_answer".
	Query string `json:"query"`
	// Verdict is, for should_run: "run", "skip", "wait_human" or "deny";
	// for permission: "allow" (a spec grant matches), "defer" (no grant
	// matches and no rule objects: the host's own permission flow decides),
	// "ask" or "deny"; claim and gate_answer: "allow" or "deny".
	Verdict string `json:"verdict"`
	// Allow is true for "run" and "allow" only: "defer" is no grant.
	Allow bool `json:"allow"`
	// Reasons say why, most important first.
	Reasons []parts.Reason `json:"reasons"`
	Goal    string         `json:"goal"`
	Agent   string         `json:"agent"`
	// Todo is the selected todo on "run" (nil otherwise).
	Todo *parts.TodoRef `json:"todo"`
	// Quota summarises usage against limits in the current window.
	Quota *parts.QuotaSummary `json:"quota"`
	// NextCheckAt is when asking again may give another answer (RFC 3339
	// UTC), nil when only a state change can.
	NextCheckAt *string `json:"next_check_at"`
	// Charge is true when acting on this decision may charge quota.
	Charge bool `json:"charge"`
	// Revision identifies the spec, policy and state the decision saw.
	Revision Revision `json:"revision"`

	// Value is the entry rule's value as the policy gave it (JSON), nil
	// when the policy could not be evaluated; the decision log keeps it
	// as result. It is not part of the decision's JSON.
	Value json.RawMessage `json:"-"`
}

// Revision identifies what a decision saw: the spec and policy content
// hashes ("sha256:…") and the store's global revision.
type Revision struct {
	Spec   string `json:"spec"`
	Policy string `json:"policy"`
	State  uint64 `json:"state"`
	// StaleSpec is true when the spec on disk is broken and the decision
	// used the last good one (watch only).
	StaleSpec bool `json:"stale_spec,omitempty"`
}

// FromValue interprets the value of q's entry rule (JSON) as a
// decision: a value of the wrong shape, or a verdict q does not have
// (query.Query.Verdicts), is a policy_error deny; allow is true for run
// and allow. Value is left nil.
func FromValue(raw []byte, q query.Query) Decision {
	rule := q.Entry
	var d Decision
	if err := json.Unmarshal(raw, &d); err != nil {
		return Deny("policy_error", rule+" has the wrong shape: "+err.Error(), rule)
	}
	if !slices.Contains(q.Verdicts, d.Verdict) {
		return Deny("policy_error", fmt.Sprintf("%s gave verdict %q, not one of %v", rule, d.Verdict, q.Verdicts), rule)
	}
	d.Allow = q.Allows(d.Verdict)
	if d.Reasons == nil {
		d.Reasons = []parts.Reason{}
	}
	return d
}

// Named is the query called name (query.ByName), for a name read back
// from a decision-log line or a decision; a name that is none of the four
// (a logged adoption's "adopt" or "restore") is a query of that name
// answered by data.loopx.<name>.decision, with no verdicts (every value
// of it a policy_error deny), reading the todos and carrying the quota
// summary.
func Named(name string) query.Query {
	if q, ok := query.ByName(name); ok {
		return q
	}
	return query.Query{Name: name, Entry: "data.loopx." + name + ".decision", ReadsTodos: true, Quota: true}
}

// Deny is a deny decision with one reason (code, msg) naming rule.
func Deny(code, msg, rule string) Decision {
	return Decision{Verdict: "deny", Reasons: []parts.Reason{{Code: code, Message: msg, Rule: rule}}}
}

// OnlyConfirmationPending reports whether d denies only for the terminal
// confirmation nobody was asked for yet (confirmation_pending), beside
// reasons that decide nothing (user_warning, and rules_pending: the rules
// in effect have a pending change): what a person may be asked to confirm.
func (d Decision) OnlyConfirmationPending() bool {
	pending := false
	for _, r := range d.Reasons {
		switch r.Code {
		case "confirmation_pending":
			pending = true
		case "user_warning", "rules_pending":
		default:
			return false
		}
	}
	return pending
}

// HasReason reports whether d carries a reason with this code.
func (d Decision) HasReason(code string) bool {
	for _, r := range d.Reasons {
		if r.Code == code {
			return true
		}
	}
	return false
}

// LogEntry is one line of .loopx/decisions.jsonl (decisionlog.Entry, an OPA
// decision-log event) with the engine's request (LogInput) and quota
// summary; LoggedDecision reads the decision it records.
type LogEntry = decisionlog.Entry[LogInput, parts.QuotaSummary]

// LogCustom is what a decision-log line adds to OPA's fields: the stored
// input's hash, the store revision, the quota summary, decided_by.
type LogCustom = decisionlog.Custom[parts.QuotaSummary]

// LogInput is the request part of a decision's input: Input without the
// kernel snapshot (input.state, in the stored input); every other field of
// Input is here (TestLogInput_IsInputWithoutState).
type LogInput struct {
	Query      string                   `json:"query"`
	Now        string                   `json:"now"`
	Goal       string                   `json:"goal"`
	Agent      string                   `json:"agent"`
	Health     input.Health             `json:"health"`
	Permission *input.PermissionRequest `json:"permission,omitempty"`
	// Claim and Answer are the requests of claim and gate_answer decisions.
	Claim  *input.ClaimFacts  `json:"claim,omitempty"`
	Answer *input.AnswerFacts `json:"answer,omitempty"`
}

// LogInputOf is in without its kernel snapshot.
func LogInputOf(in input.Input) LogInput {
	return LogInput{Query: in.Query, Now: in.Now, Goal: in.Goal, Agent: in.Agent, Health: in.Health,
		Permission: in.Permission, Claim: in.Claim, Answer: in.Answer}
}

// Logged is the decision loopx answered for the line le: its
// result interpreted as at decision time (verdict checked, allow, todo)
// with the id, request, quota and revisions added.
func Logged(le LogEntry) Decision {
	d := FromValue(le.Result, Named(le.Input.Query))
	d.DecisionID = le.DecisionID
	d.Query, d.Goal, d.Agent = le.Input.Query, le.Input.Goal, le.Input.Agent
	if d.Verdict != "run" {
		d.Todo = nil
	}
	d.Charge = d.Verdict == "run"
	d.Quota = le.Custom.Quota
	d.Revision = Revision{Spec: le.Bundles[decisionlog.SpecBundle].Revision, Policy: le.Bundles[decisionlog.PolicyBundle].Revision, State: le.Custom.State}
	if d.NextCheckAt != nil && *d.NextCheckAt == "" {
		d.NextCheckAt = nil
	}
	return d
}

// Outcome is the shape of a query's entry-rule value (the policy's part of
// a Decision).
type Outcome struct {
	Verdict     string         `json:"verdict"`
	Allow       bool           `json:"allow"`
	Reasons     []parts.Reason `json:"reasons"`
	Todo        *parts.TodoRef `json:"todo"`
	NextCheckAt *string        `json:"next_check_at"`
	Charge      bool           `json:"charge"`
}

// OutcomeOf is the policy's part of d.
func OutcomeOf(d Decision) Outcome {
	return Outcome{Verdict: d.Verdict, Allow: d.Allow, Reasons: d.Reasons, Todo: d.Todo, NextCheckAt: d.NextCheckAt, Charge: d.Charge}
}

// ParseLine decodes one decision-log line: an OPA decision-log event as
// loopx writes it, or a line of loopx's earlier format (ParseLegacyLine).
// ok is false for anything else (a torn write, a foreign line).
func ParseLine(line []byte) (LogEntry, bool) {
	if le, ok := decisionlog.Parse[LogInput, parts.QuotaSummary](line); ok {
		return le, true
	}
	return ParseLegacyLine(line)
}

// legacyLogEntry is a decision-log line of loopx before the OPA event
// format: the input without the snapshot, its hash, the whole decision as
// result, and revision as an object.
type legacyLogEntry struct {
	DecisionID string      `json:"decision_id"`
	Path       string      `json:"path"`
	Input      input.Input `json:"input"`
	InputHash  string      `json:"input_hash"`
	Result     Decision    `json:"result"`
	Timestamp  time.Time   `json:"timestamp"`
	Revision   Revision    `json:"revision"`
}

// ParseLegacyLine reads a line of loopx's earlier format (revision an
// object, input_hash) as a LogEntry with Legacy set and no stored input;
// ok is false for anything else.
func ParseLegacyLine(line []byte) (LogEntry, bool) {
	var old legacyLogEntry
	if json.Unmarshal(line, &old) != nil || old.DecisionID == "" || old.InputHash == "" {
		return LogEntry{}, false
	}
	res, err := json.Marshal(OutcomeOf(old.Result))
	if err != nil {
		return LogEntry{}, false
	}
	in := LogInputOf(old.Input)
	in.Claim, in.Answer = nil, nil // the earlier format had neither
	if in.Query == "" {
		in.Query = old.Result.Query
	}
	return LogEntry{DecisionID: old.DecisionID, Path: old.Path, Revision: old.Revision.Policy,
		Bundles: map[string]decisionlog.BundleRevision{decisionlog.PolicyBundle: {Revision: old.Revision.Policy}, decisionlog.SpecBundle: {Revision: old.Revision.Spec}},
		Input:   in, Result: res, Timestamp: old.Timestamp,
		Custom: LogCustom{State: old.Revision.State, Quota: old.Result.Quota}, Legacy: true}, true
}

// Changes says which of what a decision saw changed between the
// revisions old (logged) and cur (now), one line each ("state changed
// since: revision 12 → 15"); nil when none did.
func Changes(old, cur Revision) []string {
	var out []string
	if old.State != cur.State {
		out = append(out, fmt.Sprintf("state changed since: revision %d → %d", old.State, cur.State))
	}
	if old.Spec != cur.Spec {
		out = append(out, fmt.Sprintf("spec changed since: %s → %s", ShortHash(old.Spec), ShortHash(cur.Spec)))
	}
	if old.Policy != cur.Policy {
		out = append(out, fmt.Sprintf("policy changed since: %s → %s", ShortHash(old.Policy), ShortHash(cur.Policy)))
	}
	return out
}

// Compare reports whether b has a's verdict, todo and reason codes,
// and lists every difference (messages included).
func Compare(a, b Decision) (same bool, diffs []string) {
	diffs = []string{}
	if a.Verdict != b.Verdict {
		diffs = append(diffs, fmt.Sprintf("verdict: %s → %s", a.Verdict, b.Verdict))
	}
	if ta, tb := todoID(a.Todo), todoID(b.Todo); ta != tb {
		diffs = append(diffs, fmt.Sprintf("todo: %s → %s", ta, tb))
	}
	codes := func(d Decision) []string {
		out := make([]string, len(d.Reasons))
		for i, r := range d.Reasons {
			out[i] = r.Code
		}
		return out
	}
	sameCodes := slices.Equal(codes(a), codes(b))
	if !sameCodes {
		diffs = append(diffs, fmt.Sprintf("reasons: %s → %s", strings.Join(codes(a), ", "), strings.Join(codes(b), ", ")))
	} else {
		for i := range a.Reasons {
			if a.Reasons[i].Message != b.Reasons[i].Message {
				diffs = append(diffs, fmt.Sprintf("reason %s: %q → %q", a.Reasons[i].Code, a.Reasons[i].Message, b.Reasons[i].Message))
			}
		}
	}
	same = a.Verdict == b.Verdict && todoID(a.Todo) == todoID(b.Todo) && sameCodes
	return same, diffs
}

func todoID(t *parts.TodoRef) string {
	if t == nil {
		return "-"
	}
	return t.ID
}

// ShortHash is "sha256:" and the first 12 hex digits of h.
func ShortHash(h string) string {
	if h == "" {
		return "(none)"
	}
	if i := strings.IndexByte(h, ':'); i >= 0 && len(h) > i+13 {
		return h[:i+13]
	}
	return h
}

// Explanation is a logged decision shown again (`loopx explain ID`): what
// was asked and answered then, the same request decided now on today's
// spec, policy and state, an evaluation trace of that re-run, and whether
// the answer is the same.
type Explanation struct {
	// Logged is the decision-log line (an OPA decision-log event): the
	// request, bundles and the policy's result then. Its input has no
	// kernel snapshot (LogEntry).
	Logged LogEntry `json:"logged"`
	// Then is the decision loopx answered then (Logged.Decision()).
	Then Decision `json:"then"`
	// StoredInput is the whole input the logged decision evaluated,
	// relative to the project root (".loopx/inputs/<hex>.json"), "" when
	// there is none; StoredInputState says which: "stored", "pruned" (the
	// line names it, the file is gone), "altered" (the file's SHA-256 is not
	// the one the line names: it was changed after the decision) or "none"
	// (a line of loopx's earlier format).
	StoredInput      string `json:"stored_input"`
	StoredInputState string `json:"stored_input_state"`
	// OPAEval is the `opa eval` command line that evaluates the logged
	// path on the stored bundles and input, run from the project root; its
	// output is the logged result. "" when a file it needs is gone or the
	// policy was not evaluated (custom.decided_by "loopx").
	OPAEval string `json:"opa_eval"`
	// Rerun is the same request decided now, over the current snapshot. It
	// is not appended to the decision log.
	Rerun Decision `json:"rerun"`
	// Same is true when the re-run has the logged verdict, todo and reason
	// codes.
	Same bool `json:"same"`
	// Differences says what differs between Logged.Result and Rerun, one
	// item per field ("verdict: wait_human → run"); empty when Same and the
	// messages match too.
	Differences []string `json:"differences"`
	// Changes says which of the decision's inputs changed since it was
	// logged ("state changed since: revision 12 → 15"); empty when the
	// spec, policy and store revisions are the logged ones.
	Changes []string `json:"changes"`
	// Input is the re-run's full input (with the current kernel snapshot).
	Input input.Input `json:"input"`
	// RuleTrace is the re-run's trace reduced to rules entered and exited
	// (OPA trace events on rules, without redo), one line per item: which
	// step of the policy matched, with file:line.
	RuleTrace []string `json:"rule_trace"`
	// Trace is OPA's full evaluation trace of the re-run
	// (topdown.PrettyTraceWithLocation), one line per item.
	Trace []string `json:"trace"`
}

// StoredInput is the stored input of le relative to the project root
// (stateDirName/inputs/<hex>.json, "" when the line names none) and its
// state: "stored", "pruned" (the line names it, the file is gone),
// "altered" (the file's SHA-256 is not the one the line names) or "none"
// (a line of loopx's earlier format).
func StoredInput(le LogEntry, stateDir, stateDirName string) (rel, state string) {
	p := le.InputPath(stateDir)
	if p == "" {
		return "", "none"
	}
	rel, state = filepath.ToSlash(filepath.Join(stateDirName, decisionlog.InputsDirName, filepath.Base(p))), "pruned"
	if b, err := regularfile.ReadFile(p, maxInputBytes); err == nil {
		state = "altered"
		if sum := sha256.Sum256(b); "sha256:"+hex.EncodeToString(sum[:]) == le.Custom.Input {
			state = "stored"
		}
	}
	return rel, state
}

var policyPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_]+(/[a-z_]+)*$`) })

// OPAEvalCommand is the `opa eval` command line that reproduces le's
// result from the project root root (stateDir its .loopx), "" when a file
// it needs is not stored or the policy did not decide (decided_by loopx).
func OPAEvalCommand(le LogEntry, root, stateDir string) string {
	// The path goes into a command line a person may paste: only the
	// query's own entry rule, never what a line says.
	if le.Custom.DecidedBy != "" || le.Path != Named(le.Input.Query).Path() || !policyPath().MatchString(le.Path) {
		return ""
	}
	rel := func(p string) string {
		if p == "" {
			return ""
		}
		if _, err := os.Stat(p); err != nil {
			return ""
		}
		r, err := filepath.Rel(root, p)
		if err != nil {
			return ""
		}
		return filepath.ToSlash(r)
	}
	in, pol := rel(le.InputPath(stateDir)), rel(le.BundlePath(stateDir, decisionlog.PolicyBundle))
	if in == "" || pol == "" {
		return ""
	}
	cmd := "opa eval -f raw -b " + pol
	if _, ok := le.Bundles[decisionlog.SpecBundle]; ok {
		spec := rel(le.BundlePath(stateDir, decisionlog.SpecBundle))
		if spec == "" {
			return ""
		}
		cmd += " -b " + spec
	}
	return cmd + " -i " + in + " data." + strings.ReplaceAll(le.Path, "/", ".")
}

// LogFilter selects decision-log entries (`loopx log`). Zero fields
// match all.
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

// Match reports whether the line le passes f (its verdict read as
// Logged reads it).
func (f LogFilter) Match(le *LogEntry) bool {
	return (f.Goal == "" || le.Input.Goal == f.Goal) &&
		(f.Agent == "" || le.Input.Agent == f.Agent) &&
		(f.Query == "" || le.Input.Query == f.Query) &&
		(f.Since.IsZero() || !le.Timestamp.Before(f.Since)) &&
		(f.Verdict == "" || Logged(*le).Verdict == f.Verdict)
}

// LogEntryOf is d's line in the decision log, decided on in at now (the
// request without the snapshot; a decision the engine made itself, with
// no policy value, is decided_by loopx), and in as JSON, stored beside it.
func LogEntryOf(d Decision, in input.Input, now time.Time) (LogEntry, []byte, error) {
	inRaw, err := json.Marshal(in)
	if err != nil {
		return LogEntry{}, nil, err
	}
	result, decidedBy := d.Value, ""
	if result == nil {
		decidedBy = "loopx"
		if result, err = json.Marshal(OutcomeOf(d)); err != nil {
			return LogEntry{}, nil, err
		}
	}
	return LogEntry{
		DecisionID: d.DecisionID, Revision: d.Revision.Policy,
		Path:   Named(d.Query).Path(),
		Input:  LogInputOf(in),
		Result: result, Erased: []string{decisionlog.ErasedState}, Timestamp: now,
		Custom: LogCustom{State: in.State.Revision, Quota: d.Quota, DecidedBy: decidedBy},
	}, inRaw, nil
}
