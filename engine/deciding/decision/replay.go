package decision

import (
	"context"
	"errors"
	"time"
)

// ErrNotReplayable is what a replay's redecide returns for a logged
// decision it cannot re-decide as it was known then (its stored input
// pruned, altered, or never stored): counted, never re-decided otherwise.
var ErrNotReplayable = errors.New("decision: not replayable (input pruned)")

// ErrInputAltered is what a replay's redecide returns for a logged
// decision whose stored input is there but is not what was logged (its
// SHA-256 is not the one the log line names): not re-decided, counted in
// NotReplayable and named in Altered, because someone changed what the
// decision was made on.
var ErrInputAltered = errors.New("decision: not replayable (input altered)")

// ReplayChange is a logged decision that is decided differently now.
type ReplayChange struct {
	DecisionID string    `json:"decision_id"`
	Timestamp  time.Time `json:"timestamp"`
	Query      string    `json:"query"`
	Goal       string    `json:"goal"`
	Agent      string    `json:"agent"`
	// Old is the logged verdict; New the verdict decided now.
	Old string `json:"old"`
	New string `json:"new"`
	// Rule, Code and Message are the new decision's first reason: the rule
	// that decides it now.
	Rule    string `json:"rule"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ReplayReport is the result of Replay.
type ReplayReport struct {
	// Since is the oldest timestamp replayed (nil = the whole log).
	Since *time.Time `json:"since"`
	// Decisions is how many logged decisions were re-decided.
	Decisions int `json:"decisions"`
	// Skipped counts log lines that could not be read (torn or foreign).
	Skipped int `json:"skipped"`
	// NotReplayable counts logged decisions whose stored input is gone
	// (pruned, altered, or from before inputs were stored): not re-decided.
	NotReplayable int `json:"not_replayable"`
	// Altered lists the decision ids, among NotReplayable, whose stored
	// input was altered since it was logged (ErrInputAltered).
	Altered []string `json:"altered"`
	// Changed lists the decisions whose verdict differs now, oldest first.
	Changed []ReplayChange `json:"changed"`
}

// Replay re-decides the logged decisions entries (read from the log at or
// after since, zero = all, skipped lines not readable, readErr the
// reading's error) with redecide, in order, and lists each whose verdict
// changed, with the rule that decides it now; a decision redecide
// answers ErrNotReplayable for is counted in NotReplayable. It stops at ctx's end, at
// readErr (returned with the report so far) and at redecide's error.
func Replay(ctx context.Context, since time.Time, entries []LogEntry, skipped int, readErr error, redecide func(le LogEntry) (Decision, error)) (ReplayReport, error) {
	rep := ReplayReport{Changed: []ReplayChange{}, Altered: []string{}, Skipped: skipped}
	if !since.IsZero() {
		s := since.UTC()
		rep.Since = &s
	}
	if readErr != nil {
		return rep, readErr
	}
	for _, le := range entries {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		d, err := redecide(le)
		if errors.Is(err, ErrInputAltered) {
			rep.Altered = append(rep.Altered, le.DecisionID)
		}
		if errors.Is(err, ErrNotReplayable) || errors.Is(err, ErrInputAltered) {
			rep.NotReplayable++
			continue
		}
		if err != nil {
			return rep, err
		}
		rep.Decisions++
		old := Logged(le).Verdict
		if d.Verdict == old {
			continue
		}
		c := ReplayChange{DecisionID: le.DecisionID, Timestamp: le.Timestamp.UTC(), Query: le.Input.Query, Goal: le.Input.Goal,
			Agent: le.Input.Agent, Old: old, New: d.Verdict}
		if len(d.Reasons) > 0 {
			c.Rule, c.Code, c.Message = d.Reasons[0].Rule, d.Reasons[0].Code, d.Reasons[0].Message
		}
		rep.Changed = append(rep.Changed, c)
	}
	return rep, nil
}
