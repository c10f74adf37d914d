package engine

import (
	"time"

	"github.com/loopx-dev/loopx/engine/mutating/retention"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// PruneEvents prunes the audit event log (`loopx events --prune-before`,
// human only: the caller checks the channel first): the oldest events
// before the instant that a human has reviewed (retention.Reviewed) are
// replaced by a checkpoint carrying the hash of the last one
// (kernel.Tx.PruneEvents); an event not yet reviewed, and everything after
// it, is kept. The prune is audited as an events.pruned event by actor,
// also when nothing was pruned. Errors: store errors.
func (e *Engine) PruneEvents(before time.Time, actor string) (records.PruneReport, error) {
	var rep records.PruneReport
	err := e.update(func(tx *kernel.Tx) error {
		var err error
		rep, err = e.prune(tx, before, actor, "")
		return err
	})
	return rep, err
}

// prune runs one prune in tx over the spec's goals (retention.Prune).
func (e *Engine) prune(tx *kernel.Tx, before time.Time, actor, rule string) (records.PruneReport, error) {
	var goals []string
	if e.rules.spec != nil {
		goals = retention.Goals(e.rules.spec.Spec.Goals)
	}
	return retention.Prune(tx, goals, before, actor, rule)
}

// retain applies the spec's audit.retain in tx when it is set and due
// (retention.Due: at most once a day; always when force, after a review
// is marked), unless tx prunes already. Events are pruned by "loopx"
// under the rule the human adopted.
func (e *Engine) retain(tx *kernel.Tx, force bool) error {
	if e.rules.spec == nil || e.rules.spec.Spec.Audit.RetainSeconds <= 0 || tx.Pruning() {
		return nil
	}
	now := tx.Now()
	last, err := tx.RetentionAt()
	if err != nil {
		return err
	}
	if !force && !retention.Due(e.rules.spec.Spec.Audit.RetainSeconds, last, now) {
		return nil
	}
	if err := tx.SetRetentionAt(now); err != nil {
		return err
	}
	_, err = e.prune(tx, retention.Cutoff(e.rules.spec.Spec.Audit.RetainSeconds, now), "loopx", "audit.retain "+e.rules.spec.Spec.Audit.Retain)
	return err
}
