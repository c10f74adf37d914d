// Package parts holds the plain parts of a decision that other packages
// show or keep without evaluating anything: a reason (Reason), the todo a
// decision selected (TodoRef) and the quota summary (QuotaSummary, Usage,
// UsageF). The decision package carries them; the renderers and the views
// take them from here, so that a decision never depends on how it is
// shown. It imports only the standard library.
package parts

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

// QuotaSummary is used/limit per quota dimension of a goal's quota window;
// a nil Limit means unlimited. ResetsAt is when the window resets (RFC 3339
// UTC), nil when it never needs to.
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
