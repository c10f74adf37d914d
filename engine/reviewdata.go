package engine

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/declog"
	"github.com/loopx-dev/loopx/engine/render"
	"github.com/loopx-dev/loopx/engine/snapshot"
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

// Review is a human review packet for one goal (render.Review; Markdown
// is render.ReviewMarkdown of it).
type Review = render.Review

// ReviewEvidence is one evidence record with its freshness (render.ReviewEvidence).
type ReviewEvidence = render.ReviewEvidence

// Refusal is a group of identical decisions that said no (render.Refusal).
type Refusal = render.Refusal

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
			// The rules in effect (rules.adopted, refused adoptions and
			// restores) are every goal's: project-wide, in each review.
			if ev.Goal == o.Goal || (ev.Goal == "" && strings.HasPrefix(ev.Kind, "rules.")) {
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
		if rv.OpenGates, err = e.facts().OpenGates(tx, o.Goal); err != nil {
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
		rv.Quota = quotaSummary(gs, snapshot.QuotaFacts(gs, ledger, rounds, now))
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
	rv.Markdown = render.ReviewMarkdown(rv)
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

// refusals reads the decision log (oldest rotation first, as declog reads
// it: an overlong or unreadable line is passed over) and groups the goal's
// decisions in [since, now] that did not allow.
func (e *Engine) refusals(goal string, since, now time.Time) []Refusal {
	groups := map[string]*Refusal{}
	var order []string
	quoted := []byte(`"` + goal + `"`)
	for _, p := range e.log.Files() {
		// A file that cannot be read adds no refusals; the packet still
		// comes (the log command reports the error).
		_, _ = declog.Scan(p, func(line []byte) bool {
			if !bytes.Contains(line, quoted) {
				return true
			}
			le, ok := e.log.Parse(line)
			if !ok {
				return false
			}
			d := LoggedDecision(le)
			if (le.Input.Goal != goal && d.Goal != goal) || d.Allow || d.Verdict == "run" || d.Verdict == "allow" || d.Verdict == "defer" {
				return true
			}
			if le.Timestamp.Before(since) || le.Timestamp.After(now) {
				return true
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
			return true
		})
	}
	out := make([]Refusal, 0, len(order))
	for _, k := range order {
		out = append(out, *groups[k])
	}
	slices.SortStableFunc(out, func(a, b Refusal) int { return b.Last.Compare(a.Last) })
	return out
}
