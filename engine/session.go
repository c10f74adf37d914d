package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/claimorder"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/decisionlog"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/kernel"
)

// ReadModelName is the read model's file name in the project's anchor
// directory (internal/anchor): outside the work tree, so that an agent whose
// writes are confined to it cannot edit what decisions read.
const ReadModelName = "readmodel.json"

// Session is one Engine's use of a project's state: the kernel store, open
// (its state lock held) from Open until Release or Close; the read model
// (readmodel.json in the anchor directory) as this session last read,
// stamped and asked to refresh it; and the decision log
// (.loopx/decisions.jsonl). Building one (newSession) opens and writes
// nothing. A Session is not safe for concurrent use.
type Session struct {
	root     string
	stateDir string
	now      func() time.Time
	lock     time.Duration
	// home is the state directory the anchor directory is under
	// (Options.StateHome; "": the environment's, internal/anchor).
	home string

	store *kernel.Store
	// rmCache keeps the read model decoded last (loadReadModel): a
	// command reads it several times and decodes it once.
	rmCache readmodel.Cache
	// rmStamp is the state.db stamp of the read model this session last wrote.
	rmStamp readmodel.Stamp
	// rmWant asks Release for a read model refresh: this session committed,
	// or read the store while the read model did not match it.
	rmWant bool
	// rmNewest is the newest commit instant of the read model this session
	// last read (readmodel.Model.Newest): ClockBehind's answer while the store
	// stays closed.
	rmNewest time.Time
	// ledgerWindow is the widest quota window of the spec in effect, set
	// by the engine before a refresh: the ledger the read model keeps
	// (readmodel.Order.LedgerWindow).
	ledgerWindow time.Duration

	// log is the decision log, .loopx/decisions.jsonl with the inputs and
	// bundles stored beside it (decisionlog.go).
	log *decisionLog

	// res, when set, is the store a long-lived process keeps open
	// (Resident): Open takes its mutex in place of the state lock,
	// Release lets it go without closing the store, and the read model
	// file is neither read nor written.
	res *Resident
	// resErr refuses every open when res keeps another project's store.
	resErr error
}

// newSession is the session of the project at root whose state directory
// is stateDir and whose anchor directory is under home (Options.StateHome;
// "": the environment's), with clock now and lock bounding the wait for
// the state lock (0: the kernel's default), over res when a long-lived
// process keeps the store open (nil: the session opens it). It opens
// nothing.
func newSession(root, stateDir, home string, now func() time.Time, lock time.Duration, res *Resident) *Session {
	s := &Session{root: root, stateDir: stateDir, home: home, now: now, lock: lock, res: res, log: decisionlog.New(stateDir, Version, decision.ParseLegacyLine)}
	if res != nil && !res.keeps(stateDir) {
		s.resErr = fmt.Errorf("%w: it keeps %s, not %s", ErrOtherResident, res.Root(), root)
	}
	return s
}

// Open opens the store (kernel.Open, taking the state lock;
// kernel.Options.AcceptRollback: accept) unless it is open, and holds it
// until Release. opened says this call opened it. Errors: kernel.Open's.
func (s *Session) Open(accept bool) (st *kernel.Store, opened bool, err error) {
	if s.store != nil {
		return s.store, false, nil
	}
	if s.resErr != nil {
		return nil, false, s.resErr
	}
	if s.res != nil {
		if st, err = s.res.acquire(accept, s.now); err != nil {
			return nil, false, err
		}
		s.store = st
		return st, true, nil
	}
	o := s.Options()
	o.AcceptRollback = accept
	st, err = kernel.Open(s.stateDir, o)
	if err != nil {
		return nil, false, err
	}
	s.store = st
	return st, true, nil
}

// OnFiles runs f, a kernel reader of the store's files that takes the
// state lock itself (VerifyChainAt; Salvage, which rewrites them:
// rewrite), with the options to call it with, while this session holds
// no store. On a Resident it runs with the Resident's mutex held and the
// lock it keeps (kernel.Options.Held); a rewrite closes the Resident's
// store first. Errors: f's; closing the Resident's store.
func (s *Session) OnFiles(rewrite bool, f func(kernel.Options) error) error {
	if s.resErr != nil {
		return s.resErr
	}
	if s.res != nil {
		return s.res.exclusive(rewrite, f)
	}
	return f(s.Options())
}

// Held is the open store, nil while the session holds none.
func (s *Session) Held() *kernel.Store { return s.store }

// Options are the kernel options this session opens the store with
// (without AcceptRollback), for the kernel's readers that take the state
// lock themselves (VerifyChainAt, Salvage: call them through OnFiles).
func (s *Session) Options() kernel.Options {
	if s.res != nil {
		return s.res.opts
	}
	o := kernel.Options{Now: s.now, LockTimeout: s.lock}
	if s.home != "" {
		o.AnchorDir, _ = anchor.DirIn(s.home, s.root) // an unresolvable root fails the open
	}
	return o
}

// anchorDir is the project's anchor directory (Options.StateHome, else
// the environment's: anchor.Dir), without creating it.
func (s *Session) anchorDir() (string, error) {
	if s.home != "" {
		return anchor.DirIn(s.home, s.root)
	}
	return anchor.Dir(s.root)
}

// ensureAnchorDir is anchorDir after creating it (anchor.Ensure).
func (s *Session) ensureAnchorDir() (string, error) {
	if s.home != "" {
		return anchor.EnsureIn(s.home, s.root)
	}
	return anchor.Ensure(s.root)
}

// Release closes the store and releases the state lock; the next Open
// opens it again. Under the lock it only shrinks a grown file and, when
// this session committed or found the read model stale (and goals is
// given: usable false when the spec in effect is unusable), takes the read
// model of goals with its stamp; that file and the claim decisions' log
// lines are written after the unlock. Errors: closing the store.
func (s *Session) Release(goals []string, usable bool) error {
	if s.store == nil {
		return nil
	}
	if s.res != nil {
		_, _ = s.store.ShrinkIfGrown()
		s.store, s.rmWant = nil, false
		s.res.release(goals, usable)
		_ = s.log.Flush()
		return nil
	}
	_, _ = s.store.ShrinkIfGrown() // before the stamp: a shrink rewrites the file
	rm := s.takeReadModel(goals, usable)
	fi, statErr := os.Stat(s.store.Path())
	err := s.store.Close()
	s.store = nil
	if statErr == nil && fi.Size() >= collectAfterBytes {
		// The store's records in memory are garbage now: collected, their
		// pages hold what the refresh decodes (a short command runs with
		// the collector off, and every new page it touches is a fault).
		runtime.GC()
	}
	s.rmStamp = rm.WriteAfter(filepath.Join(s.stateDir, kernel.DBFile), s.rmStamp)
	_ = s.log.Flush() // a failed write costs the line, as it always did for a claim
	return err
}

// collectAfterBytes is the size of state.db from which Release collects
// the garbage the closed store leaves before the read model's refresh
// decodes the todos: on the long-life project (a 33 MB store) that cut a
// round finish's page faults from about 47,000 to 28,000 and its wall
// time by a fifth; on a small store a collection would cost more than
// the pages it saves.
const collectAfterBytes = 8 << 20

// Close is Release of a session whose read model is not refreshed.
func (s *Session) Close() error { return s.Release(nil, false) }

// readModelPath is <anchor>/readmodel.json, "" when the project has no
// anchor directory (no state directory is known): then decisions read the
// store.
func (s *Session) readModelPath() string {
	d, err := s.anchorDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, ReadModelName)
}

// loadReadModel returns the cached read model when it matches state.db exactly, the file is
// readable, the anchor's chain head is the one it was built at and, while this session holds the
// store, it describes the store's committed state (readmodel.Model.Describes); nil otherwise (the
// caller reads the store, whose own checks refuse a store behind or off the anchor's chain).
func (s *Session) loadReadModel(now time.Time) *readmodel.Model {
	if s.res != nil {
		// The Resident's own model, built from the store in memory: the
		// file is never read while a server holds the store.
		rm := s.res.currentModel()
		if rm == nil || (s.store != nil && !rm.Describes(s.store)) {
			return nil
		}
		s.rmNewest = rm.Newest
		return rm.At(now)
	}
	p := s.readModelPath()
	if p == "" {
		return nil
	}
	rm := s.rmCache.Load(p, filepath.Join(s.stateDir, kernel.DBFile), claimorder.Order().Bundle, now)
	if rm == nil {
		return nil
	}
	if a, ok, err := kernel.ReadAnchor(filepath.Dir(p)); err != nil || !ok || rm.Head == "" || a.Hash != rm.Head || a.Rev != rm.Rev || (s.store != nil && !rm.Describes(s.store)) {
		return nil
	}
	s.rmNewest = rm.Newest
	return rm
}

// takeReadModel takes the refresh rmWant asks for, under the lock
// (readmodel.Take): Release writes it after the unlock.
func (s *Session) takeReadModel(goals []string, usable bool) readmodel.Refresh {
	if !s.rmWant || s.store == nil || !usable {
		return readmodel.Refresh{}
	}
	s.rmWant = false
	if d, err := s.ensureAnchorDir(); err == nil {
		return readmodel.Take(s.store, filepath.Join(d, ReadModelName), goals, s.rmStamp, s.order())
	}
	return readmodel.Refresh{}
}

// order is the claim order a read model is built with, keeping the
// ledger of ledgerWindow.
func (s *Session) order() readmodel.Order {
	o := claimorder.Order()
	o.LedgerWindow = s.ledgerWindow
	return o
}

// verifyReadModel is readmodel.Verify of the read model file against the
// open store, for goals (true when the project has no anchor directory).
func (s *Session) verifyReadModel(goals []string) (bool, error) {
	p := s.readModelPath()
	if p == "" {
		return true, nil
	}
	return readmodel.Verify(p, s.store, goals, s.order())
}
