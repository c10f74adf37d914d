// Package render turns what loopx shows people and agents into text: a
// bounded turn's prompt, a goal's review packet (Markdown), the project's
// status and quota lines. It takes plain documents the engine builds from
// its snapshot (Turn, Review, Status and their parts: kernel records, a
// decision's reasons, todo and quota summary, HeldLease) and returns text;
// it reads no store, spec or policy.
package render

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/kernel/records"
)

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
func QuotaLine(q *parts.QuotaSummary) string { return quotaText(q, false) }

// quotaText renders the quota in one line; long (the prompt's and the
// review's sentence) adds the compute seconds when limited and ends in ".".
func quotaText(q *parts.QuotaSummary, long bool) string {
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
