package render

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/declog"
	"github.com/loopx-dev/loopx/kernel"
)

// DefaultReviewWindow is how far back a review looks when no review was
// made before and --since is not given.
const DefaultReviewWindow = 24 * time.Hour

// reviewEventKind marks a generated review in the audit log; the next
// review starts from it.
const reviewEventKind = "review.generated"

// ReviewOptions select a review packet.
type ReviewOptions struct {
	Goal string
	// Since is how far back to look; 0 means since the goal's last review
	// (else DefaultReviewWindow).
	Since time.Duration
	// Mark records a review.generated event after the packet is built, so
	// that the next review starts where this one ends (`loopx review
	// --mark`, human only: the caller checks the channel). Without it the
	// review writes nothing to the state.
	Mark bool
	// Actor is recorded on the review.generated event.
	Actor string
}

// ReviewEvidence is one evidence record with its freshness.
type ReviewEvidence struct {
	kernel.Evidence
	Stale bool `json:"stale"`
}

// Refusal is a group of identical decisions that said no (same query,
// agent, verdict and reasons) in the review period.
type Refusal struct {
	Query   string   `json:"query"`
	Agent   string   `json:"agent"`
	Verdict string   `json:"verdict"`
	Reasons []Reason `json:"reasons"`
	Count   int      `json:"count"`
	// First and Last are the first and last such decision; LastID is the
	// last one's decision id (`loopx explain`).
	First  time.Time `json:"first"`
	Last   time.Time `json:"last"`
	LastID string    `json:"last_decision_id"`
}

// Review is a human review packet for one goal (design §10, `loopx review`).
type Review struct {
	Goal      string    `json:"goal"`
	Objective string    `json:"objective"`
	Status    string    `json:"status"`
	Now       time.Time `json:"now"`
	Since     time.Time `json:"since"`
	// SinceLastReview is true when Since is the previous review's instant.
	SinceLastReview bool             `json:"since_last_review"`
	Events          []kernel.Event   `json:"events"`
	Rounds          []kernel.Round   `json:"rounds"`
	OpenGates       []kernel.Gate    `json:"open_gates"`
	Leases          []HeldLease      `json:"leases"`
	Evidence        []ReviewEvidence `json:"evidence"`
	EvidenceTotal   int              `json:"evidence_total"`
	Quota           *QuotaSummary    `json:"quota"`
	Refusals        []Refusal        `json:"refusals"`
	Handoff         *kernel.Handoff  `json:"handoff"`
	// Markdown is the packet as people read it.
	Markdown string `json:"markdown"`
}

// Review builds the review packet of a goal: what changed since the last
// review (audit events and rounds), open gates with their questions and
// options, live leases, evidence (stale marked), quota spent, the
// decisions that said no and why (from .loopx/decisions.jsonl and its
// rotations), and the latest handoff. It is read-only (it only imports
// the denials hooks spooled, as every writer does) unless o.Mark: then it
// records a review.generated event so that the next review starts where
// this one ended. Errors:
// errs.Usage for an unknown goal, store errors.
func (e *Engine) Review(o ReviewOptions) (Review, error) {
	rv := Review{Goal: o.Goal}
	if err := e.RequireGoal(o.Goal); err != nil {
		return rv, err
	}
	if err := e.importPending(); err != nil {
		return rv, err
	}
	gs := e.goalSpec(o.Goal)
	now := e.Now()
	rv.Objective, rv.Now = gs.Objective, now
	err := e.view(func(tx *kernel.Tx) error {
		st, err := tx.Goal(o.Goal)
		if err != nil {
			return err
		}
		rv.Status = st.Status
		rv.Since = sinceInstant(now, DefaultReviewWindow)
		var evs []kernel.Event
		if err := tx.Events(func(ev kernel.Event) bool {
			if ev.Goal == o.Goal {
				if ev.Kind == reviewEventKind && o.Since == 0 && !ev.At.After(now) {
					rv.Since, rv.SinceLastReview, evs = ev.At, true, evs[:0]
					return true
				}
				evs = append(evs, ev)
			}
			return true
		}); err != nil {
			return err
		}
		if o.Since > 0 {
			rv.Since = sinceInstant(now, o.Since)
		}
		rv.Events = []kernel.Event{}
		for _, ev := range evs {
			if !ev.At.Before(rv.Since) && ev.Kind != reviewEventKind {
				rv.Events = append(rv.Events, ev)
			}
		}
		rounds, err := tx.Rounds(o.Goal)
		if err != nil {
			return err
		}
		rv.Rounds = []kernel.Round{}
		for _, r := range rounds {
			if !r.StartedAt.Before(rv.Since) || (!r.FinishedAt.IsZero() && !r.FinishedAt.Before(rv.Since)) || r.Status == kernel.RoundOpen {
				rv.Rounds = append(rv.Rounds, r)
			}
		}
		if rv.OpenGates, err = e.openGates(tx, o.Goal); err != nil {
			return err
		}
		held, err := e.liveLeases(tx)
		if err != nil {
			return err
		}
		rv.Leases = []HeldLease{}
		for _, ls := range held {
			for _, l := range ls {
				if l.Goal == o.Goal {
					rv.Leases = append(rv.Leases, l)
				}
			}
		}
		slices.SortFunc(rv.Leases, func(a, b HeldLease) int { return strings.Compare(a.ExpiresAt+a.Todo, b.ExpiresAt+b.Todo) })
		evidence, err := tx.EvidenceList(o.Goal, 0)
		if err != nil {
			return err
		}
		rv.EvidenceTotal = len(evidence)
		rv.Evidence = []ReviewEvidence{}
		after := staleAfter(gs)
		for i, ev := range evidence {
			if i == 20 {
				break
			}
			rv.Evidence = append(rv.Evidence, ReviewEvidence{Evidence: ev, Stale: Stale(ev.CreatedAt, now, after)})
		}
		ledger, err := tx.Ledger(o.Goal)
		if err != nil {
			return err
		}
		rv.Quota = quotaSummary(gs, quotaFacts(gs, ledger, rounds, now))
		hs, err := tx.Handoffs(o.Goal)
		if len(hs) > 0 {
			rv.Handoff = &hs[len(hs)-1]
		}
		return err
	})
	if err != nil {
		return rv, err
	}
	if rv.OpenGates == nil {
		rv.OpenGates = []kernel.Gate{}
	}
	rv.Refusals = e.refusals(o.Goal, rv.Since, now)
	rv.Markdown = renderReview(rv)
	if !o.Mark {
		return rv, nil
	}
	actor := o.Actor
	if actor == "" {
		actor = "human"
	}
	err = e.update(func(tx *kernel.Tx) error {
		return tx.AppendEvent(kernel.Event{Kind: reviewEventKind, Goal: o.Goal, Actor: actor, Subject: o.Goal,
			Message: fmt.Sprintf("review of changes since %s", rfc(rv.Since)),
			Data:    map[string]any{"since": rfc(rv.Since), "events": len(rv.Events), "refusals": len(rv.Refusals)}})
	})
	return rv, err
}

// refusals reads the decision log (oldest rotation first) and groups the
// goal's decisions in [since, now] that did not allow.
func (e *Engine) refusals(goal string, since, now time.Time) []Refusal {
	paths := []string{}
	for i := declog.Keep; i >= 1; i-- {
		paths = append(paths, fmt.Sprintf("%s.%d", e.LogPath(), i))
	}
	paths = append(paths, e.LogPath())
	groups := map[string]*Refusal{}
	var order []string
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if !strings.Contains(string(line), `"`+goal+`"`) {
				continue
			}
			le, ok := e.log.Parse(line)
			if !ok {
				continue
			}
			d := LoggedDecision(le)
			if (le.Input.Goal != goal && d.Goal != goal) || d.Allow || d.Verdict == "run" || d.Verdict == "allow" || d.Verdict == "defer" {
				continue
			}
			if le.Timestamp.Before(since) || le.Timestamp.After(now) {
				continue
			}
			var key strings.Builder
			fmt.Fprintf(&key, "%s|%s|%s", d.Query, d.Agent, d.Verdict)
			for _, r := range d.Reasons {
				fmt.Fprintf(&key, "|%s:%s", r.Code, r.Message)
			}
			g, ok := groups[key.String()]
			if !ok {
				g = &Refusal{Query: d.Query, Agent: d.Agent, Verdict: d.Verdict, Reasons: d.Reasons, First: le.Timestamp}
				groups[key.String()] = g
				order = append(order, key.String())
			}
			g.Count++
			g.Last, g.LastID = le.Timestamp, d.DecisionID
		}
		f.Close()
	}
	out := make([]Refusal, 0, len(order))
	for _, k := range order {
		out = append(out, *groups[k])
	}
	slices.SortStableFunc(out, func(a, b Refusal) int { return b.Last.Compare(a.Last) })
	return out
}

// renderReview writes the packet as Markdown.
func renderReview(rv Review) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# Review: goal %s\n\n> %s\n\n", rv.Goal, rv.Objective)
	from := "the last 24h"
	if rv.SinceLastReview {
		from = "the last review"
	}
	w("Status **%s**. Generated %s; changes since %s (%s).\n", rv.Status, rfc(rv.Now), rfc(rv.Since), from)

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
		w("- %s `%s` %s %s", rfc(ev.At), ev.Kind, orDash(ev.Actor), ev.Subject)
		if ev.Message != "" {
			w(": %s", clipRunes(oneLine(ev.Message), 160))
		}
		w("\n")
	}
	if len(rv.Rounds) > 0 {
		w("\nRounds:\n\n")
		for _, r := range rv.Rounds {
			outcome := r.Status
			if r.Status == kernel.RoundFinished {
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
			w(" at %s", rfc(g.RaisedAt))
		}
		if !g.ExpiresAt.IsZero() {
			w("; expires %s (then %s)", rfc(g.ExpiresAt), orDash(g.OnExpiry))
		}
		w(".\n\nAnswer: `loopx gate answer %s --option %s`\n", g.ID, firstOr(g.Options, "approve"))
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
		w("- [%s %s] %s (%s, %s)%s\n", ev.Kind, orDash(ev.Status), clipRunes(oneLine(ev.Summary), 160), ev.ID, rfc(ev.CreatedAt), stale)
	}

	w("\n## Quota spent\n\n")
	if rv.Quota != nil {
		w("%s\n", quotaText(rv.Quota))
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
		w("- %d× %s **%s** for %s (last %s, %s)", r.Count, r.Query, r.Verdict, orDash(r.Agent), rfc(r.Last), r.LastID)
		for _, re := range r.Reasons {
			w("; %s: %s", re.Code, clipRunes(oneLine(re.Message), 200))
		}
		w("\n")
	}

	w("\n## Latest handoff\n\n")
	if h := rv.Handoff; h != nil {
		w("From %s (%s, %s): %s\n", orDash(h.Agent), orDash(h.Round), rfc(h.CreatedAt), h.Summary)
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

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func firstOr(s []string, def string) string {
	if len(s) > 0 {
		return s[0]
	}
	return def
}
