package engine

import (
	"encoding/json"

	"github.com/loopx-dev/loopx/engine/render"
)

// Decision is the answer to a query (design §6). Policies produce Verdict,
// Allow, Reasons, Todo, NextCheckAt and Charge (the value of the query's entry
// rule, e.g. data.loopx.run.decision); the engine adds the id, the request,
// the quota summary and the revisions.
type Decision struct {
	// DecisionID is a ULID, unique per decision; `loopx explain ID` finds it
	// in the decision log.
	DecisionID string `json:"decision_id"`
	// Query is "should_run", "permission", "claim" or "gate_answer".
	Query string `json:"query"`
	// Verdict is, for should_run: "run", "skip", "wait_human" or "deny";
	// for permission: "allow" (a spec grant matches), "defer" (no grant
	// matches and no rule objects: the host's own permission flow decides),
	// "ask" or "deny"; claim and gate_answer: "allow" or "deny".
	Verdict string `json:"verdict"`
	// Allow is true for "run" and "allow" only: "defer" is no grant.
	Allow bool `json:"allow"`
	// Reasons say why, most important first.
	Reasons []Reason `json:"reasons"`
	Goal    string   `json:"goal"`
	Agent   string   `json:"agent"`
	// Todo is the selected todo on "run" (nil otherwise).
	Todo *TodoRef `json:"todo"`
	// Quota summarises usage against limits in the current window.
	Quota *QuotaSummary `json:"quota"`
	// NextCheckAt is when asking again may give another answer (RFC 3339
	// UTC), nil when only a state change can.
	NextCheckAt *string `json:"next_check_at"`
	// Charge is true when acting on this decision may charge quota.
	Charge bool `json:"charge"`
	// Revision identifies the spec, policy and state the decision saw.
	Revision Revision `json:"revision"`

	// value is the entry rule's value as the policy gave it (JSON), nil
	// when the policy could not be evaluated; the decision log keeps it
	// as result.
	value json.RawMessage
}

// Reason is one reason of a decision (render.Reason: the documents
// render shows hold it too).
type Reason = render.Reason

// TodoRef names a todo in a decision (render.TodoRef).
type TodoRef = render.TodoRef

// QuotaSummary is used/limit per quota dimension; a nil Limit means
// unlimited (render.QuotaSummary).
type QuotaSummary = render.QuotaSummary

// Usage is an integer quota dimension: rounds, tokens (render.Usage).
type Usage = render.Usage

// UsageF is a fractional quota dimension: US dollars, seconds
// (render.UsageF).
type UsageF = render.UsageF

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
