// Package render turns what loopx shows people and agents into text: a
// bounded turn's prompt, a goal's review packet (Markdown), the project's
// status and quota lines. It takes plain documents the engine builds from
// its snapshot (Turn, Review, Status and their parts: kernel records,
// Reason, TodoRef, QuotaSummary, HeldLease) and returns text; it reads no
// store, spec or policy.
package render

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loopx-dev/loopx/kernel/records"
)

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

// HeldLease is a live lease an agent holds, for `loopx agent list` and the
// review packet.
type HeldLease struct {
	Todo      string `json:"todo"`
	Goal      string `json:"goal"`
	Title     string `json:"title"`
	Version   uint64 `json:"version"`
	Epoch     uint64 `json:"epoch"`
	ExpiresAt string `json:"expires_at"`
	Round     string `json:"round,omitempty"`
}

// QuotaLine is q in one line as status, decide and audit print it: rounds
// and tokens used/limit ("∞" unlimited), the cost when limited, when the
// window resets.
func QuotaLine(q *QuotaSummary) string { return quotaText(q, false) }

// quotaText renders the quota in one line; long (the prompt's and the
// review's sentence) adds the compute seconds when limited and ends in ".".
func quotaText(q *QuotaSummary, long bool) string {
	lim := func(p *int64) string {
		if p == nil {
			return "∞"
		}
		return fmt.Sprint(*p)
	}
	s := fmt.Sprintf("rounds %d/%s, tokens %d/%s", q.Rounds.Used, lim(q.Rounds.Limit), q.Tokens.Used, lim(q.Tokens.Limit))
	if q.CostUSD.Limit != nil {
		s += fmt.Sprintf(", cost $%.2f/$%.2f", q.CostUSD.Used, *q.CostUSD.Limit)
	}
	if !long {
		if q.ResetsAt != nil {
			s += ", resets " + *q.ResetsAt
		}
		return s
	}
	if q.Compute.Limit != nil {
		s += fmt.Sprintf(", compute %.0fs/%.0fs", q.Compute.Used, *q.Compute.Limit)
	}
	if q.ResetsAt != nil {
		s += "; resets " + *q.ResetsAt
	}
	return s + "."
}

// gateBlocks says what an open gate holds back.
func gateBlocks(g records.Gate) string {
	switch g.ScopeKind {
	case "agent":
		return "agents " + strings.Join(g.ScopeAgents, ", ")
	case "todo":
		return "todos " + strings.Join(g.ScopeTodos, ", ")
	case "action":
		return "actions " + strings.Join(g.Guards, ", ")
	}
	return "the goal"
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// clipRunes shortens s to at most n characters, ending in "…" when cut.
func clipRunes(s string, n int) string {
	if runes(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine is s with every run of white space (newlines included) one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func firstOr(s []string, def string) string {
	if len(s) > 0 {
		return s[0]
	}
	return def
}
