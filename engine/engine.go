// Package engine answers loopx's queries: it builds a decision's input from
// the request and a kernel snapshot, evaluates the prepared Rego policy over
// it with the exported spec as data, logs every decision, and carries out
// the mutations that follow from decisions (rounds, claims, gates).
package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/audit"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// Options configure an Engine.
type Options struct {
	// Root is the project root (the directory holding loopx/ and .loopx/).
	Root string
	// Now is the clock; nil means time.Now. Tests set it (LOOPX_NOW).
	Now func() time.Time
	// StateHome is the state directory the project's anchor directory is
	// under (internal/anchor: <StateHome>/loopx/projects/<name>-<hash>);
	// "" means $XDG_STATE_HOME, else ~/.local/state. Tests that run
	// projects in one process set it instead of the environment.
	StateHome string
	// LockTimeout bounds the wait for the state lock (0 = kernel default).
	LockTimeout time.Duration
	// LeaseTTL is the lease a round takes on its todo (0 = DefaultLeaseTTL;
	// MinLeaseTTL..MaxLeaseTTL). A shorter lease hands a killed agent's todo
	// to its peers sooner.
	LeaseTTL time.Duration
	// OnDisk evaluates the files in loopx/ as they are, not the adopted
	// revision (`vet`, `check`, `policy test|eval`); Pending still says
	// how they differ. Never for decisions that guard work.
	OnDisk bool
	// Ancestry configures how the caller's ancestor processes are read to
	// tell who is acting (ancestry.go).
	Ancestry trust.AncestryOptions
	// MaxScanFiles caps the walk `loopx run` makes of a work tree outside
	// git (0 = trust.MaxScanFiles); reaching it fails the round.
	MaxScanFiles int
	// Resident, when set, is the store a long-lived process keeps open
	// for this project (OpenResident): the engine's sessions use it, one
	// at a time, in place of opening the store and taking its lock.
	Resident *Resident
}

// Engine is one project's decision engine: its options, the rules in
// effect (a Rules: the adopted spec and policies, what is pending, the
// prepared queries) and a store session (a Session: the store and its
// lock, the read model, the decision log). Load the spec and policy once
// and ask many times. Building one writes nothing (New); what the rules'
// resolution found to record (AdoptTightening) and the spec's todos
// (SeedSpecTodos) are written by explicit steps. The store is opened on
// first use and held (with its lock) until Release or Close, so a
// long-running caller must Release it while it waits (e.g. while an agent
// command runs, or a person types).
//
// A long-lived process (a server) may keep one Engine: its options, its
// clock, the decision log, the prepared queries and the rules it resolved
// stay valid while loopx/ and the adopted revision do not change. It
// builds a new Engine (then AdoptTightening) when loopx/ changes on disk
// or another process adopts, as watch does; the state is not kept: each
// decision reads the read model or the store again. An Engine is not safe
// for concurrent use: one goroutine at a time; its Rules may be shared.
type Engine struct {
	root     string
	now      func() time.Time
	home     string // Options.StateHome
	lock     time.Duration
	leaseTTL time.Duration
	ancestry trust.AncestryOptions
	scanCap  int
	// windows is the claim order a decision over the store computed last
	// (storeWindows).
	windows *storeWindowCache
	// runner is set while Run runs rounds: trust.RunnerID of this process,
	// recorded on the rounds it starts (records.Round.Runner).
	runner string

	// rules are the rules in effect (Rules), replaced, never changed,
	// when they change.
	rules *Rules
	// held are the events resolving found for AdoptTightening to record
	// (freshDisk without a transaction).
	held []records.Event
	// rulesChecked is set once this engine made sure rules were adopted.
	rulesChecked bool
	// fromModel: the adopted rules came from the read model (modelRules at modelRev),
	// which the store's open checks; rulesGen counts the re-resolutions (checkModelRules).
	fromModel  bool
	modelRules *records.Rules
	modelRev   uint64
	rulesGen   int
	// adoptedSeen is the store's adopted revision (spec and policy
	// hashes) as this engine last resolved or adopted it (FollowRules).
	adoptedSeen [2]string
	onDisk      bool
	// cacheAudited: a link at the spec cache was recorded (auditCacheLink).
	cacheAudited bool

	// sess is the store session: the store, the read model, the
	// decision log.
	sess *Session
}

// New returns an engine for the project at o.Root, with its spec loaded
// (from the cache when unchanged) and the adopted rules in effect
// (adopt.go: a loosening edit of loopx/ is pending and not evaluated). It
// writes nothing: an edit that only tightens is pending (OnlyTightens)
// until the caller adopts it with AdoptTightening, as a command does right
// after New. It reads the store's adopted rules from the read model when
// it is fresh, else from the store, which it then keeps open (Release). A
// broken spec does not fail New: it is kept as SpecErr and every decision
// fails closed; commands that need the spec call Spec and report the
// error.
func New(o Options) *Engine {
	e := &Engine{root: o.Root, now: o.Now, home: o.StateHome, lock: o.LockTimeout, leaseTTL: o.LeaseTTL, onDisk: o.OnDisk, ancestry: o.Ancestry, scanCap: o.MaxScanFiles}
	if e.now == nil {
		e.now = time.Now
	}
	e.sess = newSession(e.root, e.StateDir(), e.home, e.now, e.lock, o.Resident)
	if e.scanCap <= 0 {
		e.scanCap = trust.MaxScanFiles
	}
	e.rules = e.resolveRules(context.Background(), e.loadDisk(newRules(e.root)))
	if o.Resident != nil {
		e.rules = o.Resident.share(e.rules)
	}
	return e
}

// Root is the project root.
func (e *Engine) Root() string { return e.root }

// loopxStateDir is loopx's state directory, where every project's anchor
// is ($XDG_STATE_HOME/loopx, or Options.StateHome's), "" when none is
// known: the permission policy protects it (input path fact loopx_state).
func (e *Engine) loopxStateDir() string {
	if e.home != "" {
		return filepath.Join(e.home, "loopx")
	}
	d, err := anchor.StateDir()
	if err != nil {
		return ""
	}
	return d
}

// SpecDir is <root>/loopx.
func (e *Engine) SpecDir() string { return filepath.Join(e.root, scaffold.SpecDirName) }

// StateDir is <root>/.loopx.
func (e *Engine) StateDir() string { return filepath.Join(e.root, scaffold.StateDirName) }

// Now is the engine's clock in UTC.
func (e *Engine) Now() time.Time { return e.now().UTC() }

// Rules are the rules in effect: the value this engine resolved last,
// which it replaces (never changes) when they change.
func (e *Engine) Rules() *Rules { return e.rules }

// Spec is Rules.Spec of the rules in effect: the loaded spec, or the
// spec's error (specs.Errors for an invalid spec: exit 2).
func (e *Engine) Spec() (*specs.Loaded, error) { return e.rules.Spec() }

// SpecErr is the error loading the spec, nil when it is valid.
func (e *Engine) SpecErr() error { return e.rules.specErr }

// Store opens the kernel store (taking the state lock) on first use.
func (e *Engine) Store() (*kernel.Store, error) { return e.open(false) }

// open opens the store on first use (kernel.Options.AcceptRollback:
// accept) and holds it until Release.
func (e *Engine) open(accept bool) (*kernel.Store, error) {
	s, opened, err := e.sess.Open(accept)
	if err != nil || !opened {
		return s, err
	}
	e.checkModelRules(s)
	e.auditCacheLink(s)
	return s, nil
}

// auditCacheLink records, once per engine, a link found where the spec
// cache is written (specs.Loaded.CacheErr) as an fs.link_refused event in
// s: the spec was evaluated all the same and decisions are unchanged, but
// a human should know a link was placed in .loopx/.
func (e *Engine) auditCacheLink(s *kernel.Store) {
	if e.cacheAudited || e.rules.disk == nil {
		return
	}
	link, re := audit.LinkRefusal(e.rules.disk.CacheErr)
	if re == nil {
		return
	}
	e.cacheAudited = true
	_ = s.Update(func(tx *kernel.Tx) error {
		return audit.Command(tx, "fs.link_refused", "writing the spec cache", "loopx", link, errs.As(re))
	})
}

// Release is Session.Release with the goals of the spec in effect: it
// closes the store and releases the state lock; the next Store call opens
// it again. Under the lock it only shrinks a grown file and takes the read
// model with its stamp; that file and the claim decisions' log lines are
// written after the unlock.
func (e *Engine) Release() error {
	usable := e.rules.spec != nil && e.rules.spec.Spec != nil
	e.sess.ledgerWindow = e.widestQuotaWindow()
	return e.sess.Release(e.GoalIDs(), usable)
}

// widestQuotaWindow is the widest quota window of the spec decisions read
// (0 when it is broken): how much of the ledger the read model keeps.
func (e *Engine) widestQuotaWindow() time.Duration {
	var w int64
	if sp := e.rules.facts().Spec; sp != nil {
		for _, g := range sp.Goals {
			w = max(w, g.Quota.WindowSeconds)
		}
	}
	return time.Duration(w) * time.Second
}

// Session is the store session this engine uses.
func (e *Engine) Session() *Session { return e.sess }

// Close releases everything the engine holds.
func (e *Engine) Close() error { return e.Release() }

// entryRules are the entry rules of the queries named names
// (query.Query.Entry), in order. Errors: an unknown query.
func entryRules(names []string) (refs []string, err error) {
	for _, name := range names {
		if name == hookRule {
			refs = append(refs, hookRule)
			continue
		}
		q, ok := query.ByName(name)
		if !ok {
			return nil, fmt.Errorf("unknown query %q", name)
		}
		refs = append(refs, q.Entry)
	}
	return refs, nil
}

// names are the names of queries, in order (the prepared queries are
// kept by name).
func names(queries []query.Query) []string {
	out := make([]string, len(queries))
	for i, q := range queries {
		out[i] = q.Name
	}
	return out
}

// Usagef is errs.Usagef: a request the engine refuses as malformed or
// naming something unknown (an errs.Usage error, exit 2) with a code
// stable for scripts.
func Usagef(code, format string, args ...any) error {
	return errs.Usagef(code, format, args...)
}

// refused is a mutation refused by a decision or a kernel rule (an errs.No
// error, exit 1: a closed gate, a lost lease, an open blocking gate) with
// code and message; data carries the refusal's facts for scripts (e.g.
// holder and expires_at of already_claimed; expected and actual of
// version_mismatch), printed in the JSON error envelope.
func refused(code, message string, data map[string]any) *errs.Error {
	e := errs.New(errs.No, code, message)
	if data != nil {
		e.Data = data
	}
	return e
}

// IsNotFound reports whether err says a record does not exist.
func IsNotFound(err error) bool { return errors.Is(err, kernel.ErrNotFound) }

// AcceptStore opens the store even when it is behind the revision this
// project last published (kernel.ErrRolledBack: restored from a backup,
// truncated, replaced or deleted), makes its revision the published one and
// audits that. It is `loopx doctor --accept-store`, a human's decision.
func (e *Engine) AcceptStore() (*kernel.Store, error) { return e.open(true) }

// ClockBehind reports whether the engine's clock reads earlier than the
// newest instant the store recorded (kernel.Store.NewestInstant): the
// system clock was moved back since the last commit, or a commit was made
// while it ran ahead. It returns that instant and true; false when the
// clock is not behind, or when this engine neither opened the store nor
// read the read model (it opens neither). A decision read from the read
// model (the fast path of decide and status) reports it from the instant
// the read model carries, which is the store's at the read model's commit.
// Decisions stay closed meanwhile: ledger entries and rounds dated after
// now still count against the quota and min_interval, and evidence dated
// after now is stale.
func (e *Engine) ClockBehind() (time.Time, bool) {
	newest := e.sess.rmNewest
	if e.sess.store != nil {
		var err error
		if newest, err = e.sess.store.NewestInstant(); err != nil {
			return time.Time{}, false
		}
	}
	if newest.IsZero() {
		return time.Time{}, false
	}
	return newest, e.Now().Before(newest)
}
