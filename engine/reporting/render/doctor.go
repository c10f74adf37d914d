package render

import (
	"time"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// DoctorReport is what `loopx doctor` found: the project root, the spec's
// error (nil when it loads), the store's path and revision, the last torn
// tail recovered on open (nil when none), the keys of records whose values
// do not decode, the installed hook entries that are missing or changed,
// whether the clock reads earlier than the store's newest commit (then
// Now and NewestCommit say by how much), and the audit event log verified
// whole (Events, EventsErr).
type DoctorReport struct {
	Root string
	// Events is the audit event log's head as read (EventsErr nil) or up
	// to its first bad record; EventsErr names that record
	// (*kernel.LogError: checksum, chain, or where the log ends).
	Events       kernel.LogHead
	EventsErr    error
	SpecErr      error
	Store        string
	Revision     uint64
	Recovered    *kernel.Recovery
	Corrupt      []string
	Hooks        []hosts.Problem
	ClockBehind  bool
	Now          time.Time
	NewestCommit time.Time
	// Chain is the store's whole chain verified (records.ChainReport: the
	// first bad transaction, damaged regions, the anchor's head).
	Chain records.ChainReport
	// ReadModelEdited is true when the read model claimed to describe
	// the store but did not hold what it holds (readmodel.Verify: an edit
	// outside loopx, checksums recomputed or not); it was removed.
	ReadModelEdited bool
	// ProtectedChanged are the files of the protected set (outside loopx/
	// and .loopx/) that differ from what the last round of loopx run left
	// (kernel.ProtectedSeen), sorted; ProtectedSince names when that was
	// ("round <id> ended", or "a human approved them").
	ProtectedChanged []string
	ProtectedSince   string
}

// Healthy reports whether the report found no problem: the spec loads, no
// record is corrupt, no hook entry is missing or changed, the clock is not
// behind, the read model was not edited, no protected file changed since
// the last round.
func (r DoctorReport) Healthy() bool {
	return r.SpecErr == nil && len(r.Corrupt) == 0 && len(r.Hooks) == 0 && !r.ClockBehind && r.EventsErr == nil && r.Chain.OK() && !r.ReadModelEdited &&
		len(r.ProtectedChanged) == 0
}
