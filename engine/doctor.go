package engine

import (
	"fmt"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// VerifyChain verifies the store's whole chain against the anchor
// (records.ChainReport), through the open store, or under the state lock
// without opening it (a store that is refused is still read). It is
// `loopx doctor` and `loopx check --audit`. Errors: the lock, reading the
// file or the anchor.
func (e *Engine) VerifyChain() (records.ChainReport, error) {
	if e.store != nil {
		return e.store.VerifyChain()
	}
	return kernel.VerifyChainAt(e.StateDir(), e.kernelOptions(kernel.Options{}))
}

// Salvage rebuilds the store from every transaction of its file that
// verifies, backs the damaged file up and re-anchors (kernel.Salvage). It
// is `loopx doctor --salvage`, a human's decision (the caller asks the
// repair rule first). Errors: kernel.Salvage's.
func (e *Engine) Salvage() (records.SalvageReport, error) {
	if err := e.Release(); err != nil {
		return records.SalvageReport{}, err
	}
	return kernel.Salvage(e.StateDir(), e.kernelOptions(kernel.Options{}))
}

// Doctor checks the project: the spec, the store (opened as it is, or
// with accept through AcceptStore: the caller has asked the repair rule
// first), recovered torn writes, corrupt records, the audit event log
// (kernel.Store.VerifyEvents), the installed hook entries, the clock and
// the read model (VerifyReadModel: an edited one is removed), and the
// protected set against what the last round of loopx run left
// (ProtectedChanged). Errors: the store cannot be opened or read
// (exit 3), or is behind its last committed revision without accept.
func (e *Engine) Doctor(accept bool) (render.DoctorReport, error) {
	var err error
	r := render.DoctorReport{Root: e.Root(), SpecErr: e.SpecErr(), Now: e.Now(), ProtectedChanged: []string{}}
	open := e.Store
	if accept {
		open = e.AcceptStore
	}
	if !accept {
		// The whole chain first: a store that open refuses is read too.
		if r.Chain, err = e.VerifyChain(); err != nil {
			return r, err
		}
	}
	s, err := open()
	if err != nil {
		if !accept && r.Chain.Problem != "" {
			return r, fmt.Errorf("%w; doctor: %s", err, render.ChainProblem(r.Chain))
		}
		return r, err
	}
	// With accept, or for a store this open created (none was there and
	// no anchor vouched for one), the chain as it is now.
	if accept || (r.Chain.Transactions == 0 && r.Chain.Anchor == nil) {
		if r.Chain, err = s.VerifyChain(); err != nil {
			return r, err
		}
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
		r.Hooks = []hosts.Problem{}
	}
	r.NewestCommit, r.ClockBehind = e.ClockBehind()
	genuine, err := e.VerifyReadModel()
	r.ReadModelEdited = err == nil && !genuine
	if seen, ok, err := e.protectedSeen(); err != nil {
		return r, err
	} else if ok {
		// What changed since the last round of loopx run (a process it
		// left behind, or anyone): the next round stops on it.
		r.ProtectedChanged = trust.ChangedDigests(seen.Files, e.scanner().Scan().ProtectedDigests())
		if r.ProtectedChanged == nil {
			r.ProtectedChanged = []string{}
		}
		r.ProtectedSince = "a human approved them"
		if seen.Round != "" {
			r.ProtectedSince = "round " + seen.Round + " ended"
		}
	}
	return r, nil
}
