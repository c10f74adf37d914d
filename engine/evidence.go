package engine

import (
	"context"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/evidence"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// AddEvidence validates and stores evidence for a goal.
func (e *Engine) AddEvidence(ev records.Evidence) (records.Evidence, error) {
	if err := e.RequireGoal(ev.Goal); err != nil {
		return ev, err
	}
	ev, err := evidence.Check(ev, e.root)
	if err != nil {
		return ev, err
	}
	var cd claimDecision
	in := ev
	err = e.updatePrepared(context.Background(), query.Claim, func(tx *kernel.Tx) error {
		ev, cd = in, claimDecision{}
		if ev.Todo != "" {
			if _, err := tx.Todo(ev.Todo); IsNotFound(err) {
				return Usagef("unknown_todo", "unknown todo %q", ev.Todo)
			}
		}
		if ev.Action != "" {
			var err error
			if cd, err = e.checkProgress(context.Background(), tx, ev.Goal, ev.By, input.ClaimFacts{Op: "evidence", Action: ev.Action}); err != nil {
				return err
			}
		}
		var err error
		ev, err = tx.AddEvidence(ev)
		return err
	})
	e.logClaim(cd)
	e.recordViolation(ev.Goal, ev.By, err, map[string]any{"mutation": "evidence.add", "action": ev.Action})
	return ev, err
}

// Evidence lists a goal's evidence, newest first (limit 0 = all).
func (e *Engine) Evidence(goal string, limit int) ([]records.Evidence, error) {
	if err := e.RequireGoal(goal); err != nil {
		return nil, err
	}
	var out []records.Evidence
	err := e.view(func(tx *kernel.Tx) error {
		var err error
		out, err = tx.EvidenceList(goal, limit)
		return err
	})
	if out == nil {
		out = []records.Evidence{}
	}
	return out, err
}
