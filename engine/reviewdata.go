package engine

import (
	"fmt"

	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Review builds the review packet of a goal: what changed since the last
// review (audit events and rounds), open gates with their questions and
// options, live leases, evidence (stale marked), quota spent, the
// decisions that said no and why (from .loopx/decisions.jsonl and its
// rotations), and the latest handoff. It is read-only (it only imports
// the denials hooks spooled, as every writer does) unless o.Mark: then it
// records a review.generated event so that the next review starts where
// this one ended. Errors:
// errs.Usage for an unknown goal, store errors.
func (e *Engine) Review(o reportdata.ReviewOptions) (render.Review, error) {
	rv := render.Review{Goal: o.Goal}
	if err := e.RequireGoal(o.Goal); err != nil {
		return rv, err
	}
	if err := e.importPending(); err != nil {
		return rv, err
	}
	gs := e.rules.facts().GoalSpec(o.Goal)
	now := e.Now()
	rv.Objective, rv.Now = gs.Objective, now
	err := e.view(func(tx *kernel.Tx) error {
		held, err := e.liveLeases(tx)
		if err != nil {
			return err
		}
		return reportdata.Review(e.rules.facts(), tx, gs, &rv, o.Since, held, now)
	})
	if err != nil {
		return rv, err
	}
	if rv.OpenGates == nil {
		rv.OpenGates = []records.Gate{}
	}
	rv.Refusals = reportdata.Refusals(e.sess.log, o.Goal, rv.Since, now)
	rv.Markdown = render.ReviewMarkdown(rv)
	if !o.Mark {
		return rv, nil
	}
	return rv, e.MarkReviewed(o, rv)
}

// MarkReviewed records that the review rv of goal o.Goal was read (a
// review.generated event by o.Actor, "human" when empty), so that the next
// review starts where rv ended, and lets audit.retain prune what it
// covered. `loopx review --mark` builds the review, has a human confirm,
// then marks it. Errors: the store's.
func (e *Engine) MarkReviewed(o reportdata.ReviewOptions, rv render.Review) error {
	actor := o.Actor
	if actor == "" {
		actor = "human"
	}
	return e.update(func(tx *kernel.Tx) error {
		if err := tx.AppendEvent(records.Event{Kind: reportdata.ReviewEventKind, Goal: o.Goal, Actor: actor, Subject: o.Goal,
			Message: fmt.Sprintf("review of changes since %s", records.RFC3339(rv.Since)),
			Data:    map[string]any{"since": records.RFC3339(rv.Since), "events": len(rv.Events), "refusals": len(rv.Refusals)}}); err != nil {
			return err
		}
		// What the review covered may now be pruned (audit.retain, prune.go).
		return e.retain(tx, true)
	})
}

// Events returns audit events matching f, oldest first (the newest Limit
// when Limit > 0), after importing denials that hooks spooled since the
// last write (spool.go). Kind matches exactly or as a family
// (reportdata.EventFilter.Check, Match).
func (e *Engine) Events(f reportdata.EventFilter) ([]records.Event, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	if f.Goal != "" {
		if err := e.RequireGoal(f.Goal); err != nil {
			return nil, err
		}
	}
	if err := e.importPending(); err != nil {
		return nil, err
	}
	var out []records.Event
	err := e.view(func(tx *kernel.Tx) (err error) { out, err = reportdata.Events(tx, f, e.Now()); return err })
	return out, err
}
