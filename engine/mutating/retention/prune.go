package retention

import (
	"fmt"
	"time"

	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// EventsPrunedKind is the audit event of a prune of the event log.
const EventsPrunedKind = "events.pruned"

// Tx is what a prune needs of a kernel transaction (kernel.Tx).
type Tx interface {
	Source
	PruneEvents(before time.Time, actor string, reviewed func(records.Event) bool) (records.PruneReport, error)
	AppendEvent(e records.Event) error
}

// Prune prunes, in tx, the events before the instant that a human has
// reviewed (Reviewed over goals) and audits it as an events.pruned event by
// actor, also when nothing was pruned — but for a prune under a spec rule
// (rule non-empty, e.g. "audit.retain 90d"), which is audited only when it
// pruned something. Errors: tx's.
func Prune(tx Tx, goals []string, before time.Time, actor, rule string) (records.PruneReport, error) {
	reviewed, err := Reviewed(tx, goals)
	if err != nil {
		return records.PruneReport{}, err
	}
	rep, err := tx.PruneEvents(before, actor, reviewed)
	if err != nil {
		return rep, err
	}
	if rule != "" && rep.Pruned == 0 {
		return rep, nil
	}
	msg := fmt.Sprintf("pruned %s older than %s", Count(rep.Pruned), records.RFC3339(before))
	if rep.Pruned > 0 {
		msg += fmt.Sprintf(" (through event %d; a checkpoint keeps the hash of the last)", rep.ThroughSeq)
	}
	if rep.Unreviewed > 0 {
		msg += fmt.Sprintf("; kept %s older, not yet reviewed (or after one that is not)", Count(rep.Unreviewed))
	}
	if rule != "" {
		msg += " (" + rule + ")"
	}
	data := map[string]any{"pruned": rep.Pruned, "kept": rep.Kept, "unreviewed": rep.Unreviewed,
		"through_seq": rep.ThroughSeq, "before": records.RFC3339(before)}
	if rep.Head != "" {
		data["head"] = rep.Head
	}
	if rule != "" {
		data["rule"] = rule
	}
	return rep, tx.AppendEvent(records.Event{Kind: EventsPrunedKind, Actor: actor, Subject: kernel.EventsFile, Message: msg, Data: data})
}
