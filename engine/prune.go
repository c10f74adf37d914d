package engine

import (
	"fmt"
	"time"

	"github.com/loopx-dev/loopx/engine/retention"
	"github.com/loopx-dev/loopx/kernel"
)

// EventsPrunedKind is the audit event of a prune of the event log.
const EventsPrunedKind = "events.pruned"

// PruneEvents prunes the audit event log (`loopx events --prune-before`,
// human only: the caller checks the channel first): the oldest events
// before the instant that a human has reviewed (retention.Reviewed) are
// replaced by a checkpoint carrying the hash of the last one
// (kernel.Tx.PruneEvents); an event not yet reviewed, and everything after
// it, is kept. The prune is audited as an events.pruned event by actor,
// also when nothing was pruned. Errors: store errors.
func (e *Engine) PruneEvents(before time.Time, actor string) (kernel.PruneReport, error) {
	var rep kernel.PruneReport
	err := e.update(func(tx *kernel.Tx) error {
		var err error
		rep, err = e.prune(tx, before, actor, "")
		return err
	})
	return rep, err
}

// prune runs one prune in tx and audits it (rule names the spec field
// when audit.retain asked for it).
func (e *Engine) prune(tx *kernel.Tx, before time.Time, actor, rule string) (kernel.PruneReport, error) {
	var goals []string
	if e.spec != nil {
		goals = retention.Goals(e.spec.Spec.Goals)
	}
	reviewed, err := retention.Reviewed(tx, goals)
	if err != nil {
		return kernel.PruneReport{}, err
	}
	rep, err := tx.PruneEvents(before, actor, reviewed)
	if err != nil {
		return rep, err
	}
	if rule != "" && rep.Pruned == 0 {
		return rep, nil
	}
	msg := fmt.Sprintf("pruned %s older than %s", retention.Count(rep.Pruned), kernel.RFC3339(before))
	if rep.Pruned > 0 {
		msg += fmt.Sprintf(" (through event %d; a checkpoint keeps the hash of the last)", rep.ThroughSeq)
	}
	if rep.Unreviewed > 0 {
		msg += fmt.Sprintf("; kept %s older, not yet reviewed (or after one that is not)", retention.Count(rep.Unreviewed))
	}
	if rule != "" {
		msg += " (" + rule + ")"
	}
	data := map[string]any{"pruned": rep.Pruned, "kept": rep.Kept, "unreviewed": rep.Unreviewed,
		"through_seq": rep.ThroughSeq, "before": kernel.RFC3339(before)}
	if rep.Head != "" {
		data["head"] = rep.Head
	}
	if rule != "" {
		data["rule"] = rule
	}
	return rep, tx.AppendEvent(kernel.Event{Kind: EventsPrunedKind, Actor: actor, Subject: kernel.EventsFile, Message: msg, Data: data})
}

// retain applies the spec's audit.retain in tx when it is set and due
// (retention.Due: at most once a day; always when force, after a review
// is marked), unless tx prunes already. Events are pruned by "loopx"
// under the rule the human adopted.
func (e *Engine) retain(tx *kernel.Tx, force bool) error {
	if e.spec == nil || e.spec.Spec.Audit.RetainSeconds <= 0 || tx.Pruning() {
		return nil
	}
	now := tx.Now()
	last, err := tx.RetentionAt()
	if err != nil {
		return err
	}
	if !force && !retention.Due(e.spec.Spec.Audit.RetainSeconds, last, now) {
		return nil
	}
	if err := tx.SetRetentionAt(now); err != nil {
		return err
	}
	_, err = e.prune(tx, retention.Cutoff(e.spec.Spec.Audit.RetainSeconds, now), "loopx", "audit.retain "+e.spec.Spec.Audit.Retain)
	return err
}

// EventCount says n events in words ("1 audit event", "3 audit events").
func EventCount(n int) string { return retention.Count(n) }
