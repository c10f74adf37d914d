package engine

import (
	"context"
	"errors"
	"github.com/loopx-dev/loopx/kernel/records"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/claimorder"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/kernel"
)

// Resident is a project's store kept open by one long-lived process
// (`loopx serve`): it holds the state lock from OpenResident to Close, so
// no other process opens the store meanwhile, and keeps the store open
// across the Engines given it (Options.Resident), which use it one
// session at a time: where a command would take the state lock, a
// session of such an Engine takes the Resident's mutex, and where it
// would close the store, it lets the mutex go.
//
// While a Resident is open no decision reads the read model file
// (readmodel.json in the anchor directory): the Resident keeps the read
// model in memory, rebuilt from the store whenever a session leaves the
// store at another head, so a forged or stale file changes nothing.
type Resident struct {
	mu   sync.Mutex
	held *kernel.HeldLock
	opts kernel.Options
	dir  string
	// store is open while the last open succeeded; nil before the first
	// use and after a refused open (each session then tries again, as a
	// command does, and the refusal is recorded the same way).
	store  *kernel.Store
	closed bool
	// lastUse is when the last session let the mutex go (under mu).
	lastUse time.Time

	// model is the read model of the store as the last session left it
	// (built from the store in memory, never read from a file), nil when
	// none is current; modelMu guards the pointer, which sessions read
	// without the mutex (a decision that opens nothing).
	modelMu sync.Mutex
	model   *readmodel.Model

	// rules keeps the prepared queries of the rules in effect last seen
	// (share), so that an engine built for each request compiles nothing
	// while loopx/ and the adopted revision stay the same.
	rmu   sync.Mutex
	rules *sharedRules

	// slots admits decisions evaluated over the kept read model, at most
	// one per processor at a time, in the order they ask (admit).
	slots chan struct{}
}

// sharedRules are the prepared queries (and the user policies' reads) of
// the rules whose spec and policy hashes are key.
type sharedRules struct {
	key   string
	prep  *rulebook.Prepared
	reads *rulebook.ReadsCache
}

// share returns rules with the prepared queries kept for the same spec and
// policies (their content hashes: the compiled queries depend on nothing
// else), keeping rules' own for the next engine when none is kept; a
// preparation that failed is never shared (a compile cut short by a
// request's deadline must not fail the requests after it).
func (r *Resident) share(rules *Rules) *Rules {
	if rules.spec == nil {
		return rules
	}
	if _, err := rules.UserModules(); err != nil {
		return rules
	}
	spec, policy := rules.revisions()
	key := spec + "\x00" + policy
	r.rmu.Lock()
	defer r.rmu.Unlock()
	if c := r.rules; c != nil && c.key == key && c.prep.Err() == nil {
		return rules.with(func(n *Rules) { n.prep, n.reads = c.prep, c.reads })
	}
	r.rules = &sharedRules{key: key, prep: rules.prep, reads: rules.reads}
	return rules
}

// ErrResidentClosed is a session's error on a closed Resident.
var ErrResidentClosed = errors.New("the server's store is closed")

// OpenResident takes the state lock of the project at o.Root (waiting up
// to o.LockTimeout, 0: the kernel's 30 s) and keeps it until Close. It
// opens the store on first use, so that a store refused at the start is
// refused to each caller (and repaired by `loopx doctor`) as without a
// server. Errors: kernel.HoldLock's (kernel.ErrLockTimeout: another
// process holds the store).
func OpenResident(o Options) (*Resident, error) {
	dir := filepath.Join(o.Root, scaffold.StateDirName)
	ko := kernel.Options{Now: o.Now, LockTimeout: o.LockTimeout}
	if o.StateHome != "" {
		ko.AnchorDir, _ = anchor.DirIn(o.StateHome, o.Root)
	}
	held, err := kernel.HoldLock(dir, ko)
	if err != nil {
		return nil, err
	}
	ko.Held = held
	return &Resident{held: held, opts: ko, dir: dir, slots: make(chan struct{}, runtime.GOMAXPROCS(0))}, nil
}

// Admit waits for a slot to answer a short request in (a hook's or a
// decision's: one that never waits on a person or runs for long) and
// returns its release: at most one such request per processor runs at a
// time, the others wait in the order they came (a channel's senders are
// woken first come, first served). Without it a server answering more
// clients than it has processors answered most at once and a few after
// tens of milliseconds (the scheduler lets a goroutine that does not block
// go on to its next request). A slot holder may wait for the store's
// mutex; a session holding the store is never made to wait for a slot
// (nothing in the engine takes one), so the two never wait on each other.
func (r *Resident) Admit() func() {
	r.slots <- struct{}{}
	return func() { <-r.slots }
}

// acquire takes the mutex and the open store (opening it when it is not:
// accept as kernel.Options.AcceptRollback), whose clock is now from here
// on (the session's engine's: each command's own); on an error the mutex
// is let go. opened says the store was opened by this call.
func (r *Resident) acquire(accept bool, now func() time.Time) (*kernel.Store, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrResidentClosed
	}
	if r.store != nil {
		r.store.SetClock(now)
		return r.store, nil
	}
	o := r.opts
	o.AcceptRollback = accept
	o.Now = now
	st, err := kernel.Open(r.dir, o)
	if err != nil {
		r.mu.Unlock()
		return nil, err
	}
	r.store = st
	return st, nil
}

// release lets the mutex go; the store stays open. Before, with the
// mutex held, it keeps the read model current: a model of another head
// than the store's (a session committed) is rebuilt from the store for
// goals when usable (the spec in effect loads), and dropped otherwise; a
// current model lacking one of goals is rebuilt too.
func (r *Resident) release(goals []string, usable bool) {
	defer r.mu.Unlock()
	r.lastUse = time.Now()
	if r.store == nil {
		r.setModel(nil)
		return
	}
	_, head := r.store.Head()
	m := r.currentModel()
	if m != nil && m.Head == head && m.Has(goals...) {
		return
	}
	if !usable || len(goals) == 0 {
		if m != nil && m.Head != head {
			r.setModel(nil)
		}
		return
	}
	rm, _, err := readmodel.Build(r.store, goals, claimorder.Order())
	if err != nil {
		r.setModel(nil)
		return
	}
	r.setModel(&rm)
}

// currentModel is the read model kept, nil when none.
func (r *Resident) currentModel() *readmodel.Model {
	r.modelMu.Lock()
	defer r.modelMu.Unlock()
	return r.model
}

func (r *Resident) setModel(m *readmodel.Model) {
	r.modelMu.Lock()
	r.model = m
	r.modelMu.Unlock()
}

// exclusive runs f with the mutex held and the kernel options of a store
// whose lock is held (kernel.Options.Held), for the kernel's readers that
// work on the files (VerifyChainAt, Salvage): when rewrite, the open store
// is closed first, as the files change beneath it, and opened again by the
// next session.
func (r *Resident) exclusive(rewrite bool, f func(kernel.Options) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrResidentClosed
	}
	if rewrite && r.store != nil {
		r.setModel(nil)
		err := r.store.Close()
		r.store = nil
		if err != nil {
			return err
		}
	}
	return f(r.opts)
}

// Close waits for the session in progress, closes the store and releases
// the state lock. Later sessions fail with ErrResidentClosed.
func (r *Resident) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	var err error
	if r.store != nil {
		err = r.store.Close()
		r.store = nil
	}
	if rerr := r.held.Release(); err == nil {
		err = rerr
	}
	return err
}

// Root is the project root the Resident keeps the store of.
func (r *Resident) Root() string { return filepath.Dir(r.dir) }

// ErrOtherResident is a session's error on a Resident that keeps another
// project's store than the engine's.
var ErrOtherResident = errors.New("the server's store is another project's")

// keeps reports whether stateDir (a project's .loopx) is the Resident's,
// compared by real path.
func (r *Resident) keeps(stateDir string) bool {
	a, err1 := filepath.EvalSymlinks(stateDir)
	b, err2 := filepath.EvalSymlinks(r.dir)
	if err1 != nil || err2 != nil {
		return filepath.Clean(stateDir) == filepath.Clean(r.dir)
	}
	return a == b
}

// ShrinkIfIdle shrinks the open store's file when it has grown
// (kernel.Store.ShrinkIfGrown: state.db.bak first) and no session has
// used it for idle: buntdb's own background shrink is off, and a store a
// server keeps open is never closed, where a command's store shrinks.
// tried is false when a session runs or ran within idle, or no store is
// open; the report says whether the file was rewritten.
func (r *Resident) ShrinkIfIdle(idle time.Duration) (rep records.ShrinkReport, tried bool, err error) {
	if !r.mu.TryLock() {
		return rep, false, nil
	}
	defer r.mu.Unlock()
	if r.closed || r.store == nil || time.Since(r.lastUse) < idle {
		return rep, false, nil
	}
	rep, err = r.store.ShrinkIfGrown()
	return rep, true, err
}

// KeepShrunk calls ShrinkIfIdle(idle) every interval until ctx is done;
// a shrink that fails is given to failed (nil: ignored), and the store
// stays valid whatever happens (ShrinkIfGrown's promise).
func (r *Resident) KeepShrunk(ctx context.Context, every, idle time.Duration, failed func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, _, err := r.ShrinkIfIdle(idle); err != nil && failed != nil {
				failed(err)
			}
		}
	}
}

// ServeGC sets the garbage collection of a process that keeps a Resident
// and answers requests for hours (`loopx serve`), unless GOGC or
// GOMEMLIMIT chose otherwise: a collection when the heap has grown to five
// times what was live (GOGC=400; the default 100 collects four times as
// often, and a request that meets a collection waits for its marking),
// and more often only near serveHeapSoft.
func ServeGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(serveHeapSoft)
}

// serveHeapSoft is the server's soft memory limit, in bytes: the heap it
// may grow to before collecting more often than GOGC says (a hard cap is
// set apart, watchdog.CapMemory).
const serveHeapSoft = 1 << 30
