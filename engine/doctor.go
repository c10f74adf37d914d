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
	if e.sess.store != nil {
		return e.sess.store.VerifyChain()
	}
	var rep records.ChainReport
	err := e.sess.OnFiles(false, func(o kernel.Options) (err error) {
		rep, err = kernel.VerifyChainAt(e.StateDir(), o)
		return err
	})
	return rep, err
}

// Salvage rebuilds the store from every transaction of its file that
// verifies, backs the damaged file up and re-anchors (kernel.Salvage). It
// is `loopx doctor --salvage`, a human's decision (the caller asks the
// repair rule first). Errors: kernel.Salvage's.
//
// A store that opens and whose chain verifies, with an event log damaged
// in the middle, is not rebuilt: the damaged records are cut and a gap
// stands for them (RepairEvents).
func (e *Engine) Salvage() (records.SalvageReport, error) {
	if s, err := e.Store(); err == nil {
		if _, verr := s.VerifyEvents(); verr != nil {
			if cr, cerr := e.VerifyChain(); cerr == nil && cr.Problem == "" {
				rep, err := e.RepairEvents("human")
				if err != nil {
					return records.SalvageReport{}, err
				}
				rev, _ := s.Head()
				return records.SalvageReport{Chain: cr, Kept: rev, Events: &rep}, nil
			}
		}
	}
	if err := e.Release(); err != nil {
		return records.SalvageReport{}, err
	}
	var rep records.SalvageReport
	err := e.sess.OnFiles(true, func(o kernel.Options) (err error) {
		rep, err = kernel.Salvage(e.StateDir(), o)
		return err
	})
	return rep, err
}

// EventsSalvagedKind is the audit event of a repair of the event log
// (RepairEvents).
const EventsSalvagedKind = "events.salvaged"

// RepairEvents cuts the damaged records of an event log damaged in the
// middle (kernel.Tx.RepairEvents: a gap record stands for them, checked
// against the head the store committed) and audits it as events.salvaged
// by actor. It is part of `loopx doctor --salvage`, a human's decision
// (the caller asks the repair rule first). Errors: kernel.ErrNothingToRepair;
// a damage it cannot bridge; store errors.
func (e *Engine) RepairEvents(actor string) (records.EventsRepair, error) {
	var rep records.EventsRepair
	err := e.update(func(tx *kernel.Tx) error {
		var err error
		if rep, err = tx.RepairEvents(actor); err != nil {
			return err
		}
		return tx.AppendEvent(records.Event{Kind: EventsSalvagedKind, Actor: actor, Subject: kernel.EventsFile,
			Message: RepairMessage(rep), Data: map[string]any{"from": rep.From, "through": rep.Through, "bytes": rep.Bytes, "reason": rep.Reason, "gap": rep.Gap}})
	})
	return rep, err
}

// RepairMessage says what a repair of the event log cut, in one line.
func RepairMessage(rep records.EventsRepair) string {
	if !rep.Gap {
		return fmt.Sprintf("cut %d bytes that were no record from %s (%s); no record was lost", rep.Bytes, kernel.EventsFile, rep.Reason)
	}
	them := "them"
	if rep.From == rep.Through {
		them = "it"
	}
	return fmt.Sprintf("cut %s (%d bytes) from %s (%s); a gap record stands for %s and the hash chain goes on past it", kernel.RecordSpan(rep.From, rep.Through), rep.Bytes, kernel.EventsFile, rep.Reason, them)
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

// VerifyReadModel reports whether the read model file, when it claims to
// describe the current state.db, holds exactly what the store says
// (readmodel.Verify: a file edited outside loopx is removed and false is
// returned). It opens the store. Errors: the store's.
func (e *Engine) VerifyReadModel() (bool, error) {
	if _, err := e.Store(); err != nil {
		return false, err
	}
	e.sess.ledgerWindow = e.widestQuotaWindow()
	return e.sess.verifyReadModel(e.GoalIDs())
}
