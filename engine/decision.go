package engine

import "encoding/json"

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

// Reason is one reason of a decision.
type Reason struct {
	// Code is stable and machine-readable ("quota_exhausted", "gate_open", …).
	Code string `json:"code"`
	// Message is for people.
	Message string `json:"message"`
	// Rule is the policy rule that produced it ("data.loopx.run.quota").
	Rule string `json:"rule"`
	// Ref is the spec field or kernel record it refers to
	// ("goals.g1.quota.rounds", "gate g-4f9a"); "" when none.
	Ref string `json:"ref"`
	// Data carries the reason's facts for scripts, when the rule gives any
	// (the holder and expires_at of already_claimed, the open dependencies
	// of depends_on_open); a refused mutation reports it as its error's data.
	Data map[string]any `json:"data,omitempty"`
}

// TodoRef names a todo in a decision.
type TodoRef struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Kind  string `json:"kind"`
}

// QuotaSummary is used/limit per quota dimension; a nil Limit means unlimited.
type QuotaSummary struct {
	Rounds   Usage   `json:"rounds"`
	Tokens   Usage   `json:"tokens"`
	CostUSD  UsageF  `json:"cost_usd"`
	Compute  UsageF  `json:"compute_seconds"`
	ResetsAt *string `json:"resets_at"`
}

// Usage is an integer quota dimension (rounds, tokens).
type Usage struct {
	Used  int64  `json:"used"`
	Limit *int64 `json:"limit"`
	// InFlight counts open rounds not charged yet (rounds only; the
	// rounds limit applies to Used + InFlight).
	InFlight int64 `json:"in_flight,omitempty"`
}

// UsageF is a fractional quota dimension (US dollars, seconds).
type UsageF struct {
	Used  float64  `json:"used"`
	Limit *float64 `json:"limit"`
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
