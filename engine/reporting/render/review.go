package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/kernel/records"
)

// ReviewEvidence is one evidence record with its freshness.
type ReviewEvidence struct {
	records.Evidence
	Stale bool `json:"stale"`
}

// Refusal is a group of identical decisions that said no (same query,
// agent, verdict and reasons) in the review period.
type Refusal struct {
	Query   string         `json:"query"`
	Agent   string         `json:"agent"`
	Verdict string         `json:"verdict"`
	Reasons []parts.Reason `json:"reasons"`
	Count   int            `json:"count"`
	// First and Last are the first and last such decision; LastID is the
	// last one's decision id (`loopx explain`).
	First  time.Time `json:"first"`
	Last   time.Time `json:"last"`
	LastID string    `json:"last_decision_id"`
}

// Review is a human review packet for one goal (`loopx
// review`), built by the engine; ReviewMarkdown renders it.
type Review struct {
	Goal      string    `json:"goal"`
	Objective string    `json:"objective"`
	Status    string    `json:"status"`
	Now       time.Time `json:"now"`
	Since     time.Time `json:"since"`
	// SinceLastReview is true when Since is the previous review's instant.
	SinceLastReview bool                `json:"since_last_review"`
	Events          []records.Event     `json:"events"`
	Rounds          []records.Round     `json:"rounds"`
	OpenGates       []records.Gate      `json:"open_gates"`
	Leases          []HeldLease         `json:"leases"`
	Evidence        []ReviewEvidence    `json:"evidence"`
	EvidenceTotal   int                 `json:"evidence_total"`
	Quota           *parts.QuotaSummary `json:"quota"`
	Refusals        []Refusal           `json:"refusals"`
	// GatePolls are the counted polls of round start under the goal's
	// gates that are open or were polled since Since, by gate and agent.
	GatePolls []records.GatePoll `json:"gate_polls"`
	Handoff   *records.Handoff   `json:"handoff"`
	// Markdown is the packet as people read it.
	Markdown string `json:"markdown"`
}

// ReviewMarkdown is the review packet rv as people read it (Markdown):
// what changed (the last 100 events, the rounds; an agent's first poll
// under a gate with its count), the open gates with how to answer them and
// who polled them, live leases, evidence (stale marked), quota spent, the
// decisions that said no (30 kinds at most) and the latest handoff.
func ReviewMarkdown(rv Review) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# Review: goal %s\n\n> %s\n\n", rv.Goal, rv.Objective)
	from := "the last 24h"
	if rv.SinceLastReview {
		from = "the last review"
	}
	w("Status **%s**. Generated %s; changes since %s (%s).\n", rv.Status, records.RFC3339(rv.Now), records.RFC3339(rv.Since), from)

	w("\n## What changed (%d events)\n\n", len(rv.Events))
	if len(rv.Events) == 0 {
		w("Nothing changed.\n")
	}
	const maxEvents = 100
	evs := rv.Events
	if len(evs) > maxEvents {
		w("(%d earlier events left out: loopx events --goal %s --since …)\n", len(evs)-maxEvents, rv.Goal)
		evs = evs[len(evs)-maxEvents:]
	}
	for _, ev := range evs {
		w("- %s `%s` %s %s", records.RFC3339(ev.At), ev.Kind, orDash(ev.Actor), ev.Subject)
		if ev.Message != "" {
			w(": %s", clipRunes(oneLine(ev.Message), 160))
		}
		if p := PollOf(ev, rv.GatePolls); p != nil {
			w(" (first poll; %s)", PollText(contract.GatePollOf(*p)))
		}
		w("\n")
	}
	if len(rv.Rounds) > 0 {
		w("\nRounds:\n\n")
		for _, r := range rv.Rounds {
			outcome := r.Status
			if r.Status == records.RoundFinished {
				outcome = r.Outcome
				if r.Charged {
					outcome += ", charged"
				}
			}
			w("- %s by %s on %s: %s", r.ID, r.Agent, orDash(r.Todo), outcome)
			if r.Summary != "" {
				w(": %s", clipRunes(oneLine(r.Summary), 160))
			}
			w("\n")
		}
	}

	w("\n## Open gates (%d)\n\n", len(rv.OpenGates))
	if len(rv.OpenGates) == 0 {
		w("None.\n")
	}
	for i, g := range rv.OpenGates {
		if i > 0 {
			w("\n")
		}
		w("### %s: %s\n\n", g.ID, g.Question)
		w("Options: %s. Answerers: %s. Blocks %s. Raised by %s", strings.Join(g.Options, ", "), strings.Join(g.Answerers, ", "), gateBlocks(g), orDash(g.RaisedBy))
		if !g.RaisedAt.IsZero() {
			w(" at %s", records.RFC3339(g.RaisedAt))
		}
		if !g.ExpiresAt.IsZero() {
			w("; expires %s (then %s)", records.RFC3339(g.ExpiresAt), orDash(g.OnExpiry))
		}
		w(".\n")
		if polls := gatePollsText(g.ID, rv.GatePolls); polls != "" {
			w("\nPolled by round start while open: %s; each agent's first poll is an event, the rest are counted.\n", polls)
		}
		w("\nAnswer: `loopx gate answer %s --option %s`\n", g.ID, firstOr(g.Options, "approve"))
	}

	w("\n## Leases (%d live)\n\n", len(rv.Leases))
	if len(rv.Leases) == 0 {
		w("None.\n")
	}
	for _, l := range rv.Leases {
		w("- %s %q held until %s (version %d, epoch %d)\n", l.Todo, l.Title, l.ExpiresAt, l.Version, l.Epoch)
	}

	w("\n## Evidence (%d of %d, newest first)\n\n", len(rv.Evidence), rv.EvidenceTotal)
	if len(rv.Evidence) == 0 {
		w("None.\n")
	}
	for _, ev := range rv.Evidence {
		stale := ""
		if ev.Stale {
			stale = " **STALE**"
		}
		w("- [%s %s] %s (%s, %s)%s\n", ev.Kind, orDash(ev.Status), clipRunes(oneLine(ev.Summary), 160), ev.ID, records.RFC3339(ev.CreatedAt), stale)
	}

	w("\n## Quota spent\n\n")
	if rv.Quota != nil {
		w("%s\n", quotaText(rv.Quota, true))
	}

	w("\n## Decisions that said no (%d distinct)\n\n", len(rv.Refusals))
	if len(rv.Refusals) == 0 {
		w("None.\n")
	}
	for i, r := range rv.Refusals {
		if i == 30 {
			w("(%d more kinds left out)\n", len(rv.Refusals)-30)
			break
		}
		w("- %d× %s **%s** for %s (last %s, %s)", r.Count, r.Query, r.Verdict, orDash(r.Agent), records.RFC3339(r.Last), r.LastID)
		for _, re := range r.Reasons {
			w("; %s: %s", re.Code, clipRunes(oneLine(re.Message), 200))
		}
		w("\n")
	}

	w("\n## Latest handoff\n\n")
	if h := rv.Handoff; h != nil {
		w("From %s (%s, %s): %s\n", orDash(h.Agent), orDash(h.Round), records.RFC3339(h.CreatedAt), h.Summary)
		if h.NextTodo != "" {
			w("Next todo: %s", h.NextTodo)
			if h.For != "" {
				w(" (for %s)", h.For)
			}
			w("\n")
		}
	} else {
		w("None.\n")
	}
	return b.String()
}
