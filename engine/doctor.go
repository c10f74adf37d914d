package engine

import (
	"time"

	"github.com/loopx-dev/loopx/kernel"
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
	Hooks        []HookProblem
	ClockBehind  bool
	Now          time.Time
	NewestCommit time.Time
}

// Healthy reports whether the report found no problem: the spec loads, no
// record is corrupt, no hook entry is missing or changed, the clock is not
// behind.
func (r DoctorReport) Healthy() bool {
	return r.SpecErr == nil && len(r.Corrupt) == 0 && len(r.Hooks) == 0 && !r.ClockBehind && r.EventsErr == nil
}

// Doctor checks the project: the spec, the store (opened as it is, or
// with accept through AcceptStore: the caller has asked the repair rule
// first), recovered torn writes, corrupt records, the audit event log
// (kernel.Store.VerifyEvents), the installed hook entries and the clock. Errors: the store cannot be opened or read
// (exit 3), or is behind its last committed revision without accept.
func (e *Engine) Doctor(accept bool) (DoctorReport, error) {
	r := DoctorReport{Root: e.Root(), SpecErr: e.SpecErr(), Now: e.Now()}
	open := e.Store
	if accept {
		open = e.AcceptStore
	}
	s, err := open()
	if err != nil {
		return r, err
	}
	r.Store = s.Path()
	if r.Revision, err = s.Revision(); err != nil {
		return r, err
	}
	if r.Recovered, err = s.LastRecovery(); err != nil {
		return r, err
	}
	if r.Corrupt, err = s.Verify(); err != nil {
		return r, err
	}
	// The whole event log: every checksum, the chain, where it ends.
	r.Events, r.EventsErr = s.VerifyEvents()
	if r.Hooks, err = e.CheckHooks(); err != nil {
		return r, err
	}
	if r.Hooks == nil {
		r.Hooks = []HookProblem{}
	}
	r.NewestCommit, r.ClockBehind = e.ClockBehind()
	return r, nil
}
