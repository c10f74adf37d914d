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

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/decisionlog"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/adopt"
	"github.com/loopx-dev/loopx/engine/mutating/audit"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/policies"
	"github.com/loopx-dev/loopx/specs"
	"github.com/open-policy-agent/opa/v1/rego"
)

// Options configure an Engine.
type Options struct {
	// Root is the project root (the directory holding loopx/ and .loopx/).
	Root string
	// Now is the clock; nil means time.Now. Tests set it (LOOPX_NOW).
	Now func() time.Time
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
}

// Engine is one project's decision engine. Load the spec and policy once
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
// for concurrent use: one goroutine at a time.
type Engine struct {
	root     string
	now      func() time.Time
	lock     time.Duration
	leaseTTL time.Duration
	ancestry trust.AncestryOptions
	scanCap  int
	// runner is set while Run runs rounds: trust.RunnerID of this process,
	// recorded on the rounds it starts (records.Round.Runner).
	runner string

	// spec is the adopted spec decisions evaluate (adopt.go); disk is the
	// spec the files on disk give, the same one unless a change is pending.
	spec    *specs.Loaded
	specErr error
	disk    *specs.Loaded
	diskErr error
	// pending is the change of loopx/ waiting for a human, nil when none.
	pending *adopt.Pending
	// tightening is the revision on disk when pending only tightens (what
	// AdoptTightening adopts); held are the events resolving found for it
	// to record (freshDisk without a transaction).
	tightening records.Rules
	held       []records.Event
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

	// prep holds the queries prepared for the rules in effect.
	prep rulebook.Prepared

	user       []rulebook.Module
	userErr    error
	userLoaded bool

	// reads is whether the user policies may read the todos.
	reads rulebook.ReadsCache

	store *kernel.Store
	// rmCache keeps the read model decoded last (loadReadModel): a
	// command reads it several times and decodes it once.
	rmCache readmodel.Cache
	// rmStamp is the state.db stamp of the read model this engine last wrote.
	rmStamp readmodel.Stamp
	// rmWant asks Release for a read model refresh: this engine committed,
	// or read the store while the read model did not match it.
	rmWant bool
	// rmNewest is the newest commit instant of the read model this engine
	// last read (readmodel.Model.Newest): ClockBehind's answer while the store
	// stays closed.
	rmNewest time.Time

	// log is the decision log, .loopx/decisions.jsonl with the inputs and
	// bundles stored beside it (decisionlog.go).
	log *decisionLog
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
	e := &Engine{root: o.Root, now: o.Now, lock: o.LockTimeout, leaseTTL: o.LeaseTTL, onDisk: o.OnDisk, ancestry: o.Ancestry, scanCap: o.MaxScanFiles}
	e.log = decisionlog.New(e.StateDir(), Version, decision.ParseLegacyLine)
	if e.scanCap <= 0 {
		e.scanCap = trust.MaxScanFiles
	}
	if e.now == nil {
		e.now = time.Now
	}
	e.loadDisk()
	e.spec, e.specErr = e.disk, e.diskErr
	e.resolveRules(context.Background())
	return e
}

// Root is the project root.
func (e *Engine) Root() string { return e.root }

// SpecDir is <root>/loopx.
func (e *Engine) SpecDir() string { return filepath.Join(e.root, scaffold.SpecDirName) }

// StateDir is <root>/.loopx.
func (e *Engine) StateDir() string { return filepath.Join(e.root, scaffold.StateDirName) }

// Now is the engine's clock in UTC.
func (e *Engine) Now() time.Time { return e.now().UTC() }

// Spec returns the loaded spec, or the spec's error (specs.Errors for an
// invalid spec: exit 2).
func (e *Engine) Spec() (*specs.Loaded, error) { return e.spec, e.specErr }

// SpecErr is the error loading the spec, nil when it is valid.
func (e *Engine) SpecErr() error { return e.specErr }

// Store opens the kernel store (taking the state lock) on first use.
func (e *Engine) Store() (*kernel.Store, error) { return e.open(false) }

// open opens the store on first use (kernel.Options.AcceptRollback:
// accept) and holds it until Release.
func (e *Engine) open(accept bool) (*kernel.Store, error) {
	if e.store != nil {
		return e.store, nil
	}
	s, err := kernel.Open(e.StateDir(), kernel.Options{Now: e.now, LockTimeout: e.lock, AcceptRollback: accept})
	if err != nil {
		return nil, err
	}
	e.store = s
	e.checkModelRules(s)
	e.auditCacheLink(s)
	return s, nil
}

// auditCacheLink records, once per engine, a link found where the spec
// cache is written (specs.Loaded.CacheErr) as an fs.link_refused event in
// s: the spec was evaluated all the same and decisions are unchanged, but
// a human should know a link was placed in .loopx/.
func (e *Engine) auditCacheLink(s *kernel.Store) {
	if e.cacheAudited || e.disk == nil {
		return
	}
	link, re := audit.LinkRefusal(e.disk.CacheErr)
	if re == nil {
		return
	}
	e.cacheAudited = true
	_ = s.Update(func(tx *kernel.Tx) error {
		return audit.Command(tx, "fs.link_refused", "writing the spec cache", "loopx", link, errs.As(re))
	})
}

// Release closes the store and releases the state lock; the next Store
// call opens it again. Under the lock it only shrinks a grown file and
// takes the read model with its stamp (takeReadModel); that file and the
// claim decisions' log lines are written after the unlock.
func (e *Engine) Release() error {
	if e.store == nil {
		return nil
	}
	_, _ = e.store.ShrinkIfGrown() // before the stamp: a shrink rewrites the file
	rm := e.takeReadModel()
	err := e.store.Close()
	e.store = nil
	e.rmStamp = rm.WriteAfter(filepath.Join(e.StateDir(), kernel.DBFile), e.rmStamp)
	_ = e.log.Flush() // a failed write costs the line, as it always did for a claim
	return err
}

// Close releases everything the engine holds.
func (e *Engine) Close() error { return e.Release() }

// Revision returns the content hashes of the spec ("" when broken) and the
// policy bundle.
func (e *Engine) revisions() (spec, policy string) {
	if e.spec != nil {
		spec = e.spec.Hash
	}
	user, _ := e.UserModules()
	return spec, rulebook.Hash(user)
}

// prepareAll prepares queries in parallel and waits (rulebook.Prepared).
// Mutations call it before the store is opened: they evaluate their
// decisions inside a transaction, under the state lock, and must not
// compile policies there.
func (e *Engine) prepareAll(ctx context.Context, queries ...string) {
	user, uerr := e.UserModules() // loaded once, before any goroutine reads them
	if len(queries) > 1 && uerr == nil {
		// Several queries compile their modules together once (the
		// library they share is parsed and compiled once) and prepare
		// each entry rule on that compiler (rulebook.Schemas.PrepareAll).
		e.prep.Together(ctx, func(ctx context.Context, qs []string) ([]*rego.PreparedEvalQuery, error) {
			return e.compileQueries(ctx, qs, user)
		}, queries...)
	}
	e.prep.All(ctx, e.compile, queries...)
}

// compile compiles and prepares query (see prepare).
func (e *Engine) compile(ctx context.Context, query string) (*rego.PreparedEvalQuery, error) {
	user, err := e.UserModules()
	if err != nil {
		return nil, err
	}
	pqs, err := e.compileQueries(ctx, []string{query}, user)
	if err != nil {
		return nil, err
	}
	return pqs[0], nil
}

// compileQueries prepares the entry rules of queries (see prepare), in
// their order, over one compilation of the modules they reach.
func (e *Engine) compileQueries(ctx context.Context, queries []string, user []rulebook.Module) ([]*rego.PreparedEvalQuery, error) {
	refs, err := entryRules(queries)
	if err != nil {
		return nil, err
	}
	return policySchemas.PrepareAll(ctx, refs, e.specJSON(), user)
}

// entryRules are the entry rules of queries (policies.Queries), in order.
// Errors: an unknown query.
func entryRules(queries []string) (refs []string, err error) {
	for _, q := range queries {
		ref, ok := policies.Queries[q]
		if !ok {
			return nil, fmt.Errorf("unknown query %q", q)
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// compileRef prepares the entry rule ref over the built-in modules it
// reaches and the user modules user (none: built-in only), with the spec
// in effect as data (rulebook.Schemas.Prepare).
func (e *Engine) compileRef(ctx context.Context, ref string, user []rulebook.Module) (*rego.PreparedEvalQuery, error) {
	return policySchemas.Prepare(ctx, ref, e.specJSON(), user)
}

// specJSON is the exported spec in effect, nil when none loads.
func (e *Engine) specJSON() []byte {
	if e.spec == nil {
		return nil
	}
	return e.spec.JSON
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
	newest := e.rmNewest
	if e.store != nil {
		var err error
		if newest, err = e.store.NewestInstant(); err != nil {
			return time.Time{}, false
		}
	}
	if newest.IsZero() {
		return time.Time{}, false
	}
	return newest, e.Now().Before(newest)
}
