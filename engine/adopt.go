package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/adopt"
	"github.com/loopx-dev/loopx/engine/mutating/audit"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// Pending is Rules.Pending of the rules in effect: what waits for a
// human's adoption, nil when none.
func (e *Engine) Pending() *adopt.Pending { return e.rules.Pending() }

// DiskSpec is Rules.DiskSpec of the rules in effect: the spec as the files
// on disk say, or its error.
func (e *Engine) DiskSpec() (*specs.Loaded, error) { return e.rules.DiskSpec() }

// diskRules reads loopx/ as it is on disk (adopt.DiskRules).
func (e *Engine) diskRules() (records.Rules, error) {
	return adopt.DiskRules(e.SpecDir(), e.rules.disk, e.book())
}

// adoptedRules returns the adopted rules from the read model when it is
// fresh, else from the store; ok false when none were adopted.
func (e *Engine) adoptedRules() (records.Rules, bool, error) {
	if e.sess.store == nil {
		if rm := e.sess.loadReadModel(e.Now()); rm != nil {
			e.fromModel, e.modelRules, e.modelRev = true, rm.Rules, rm.Rev
			if rm.Rules == nil {
				return records.Rules{}, false, nil
			}
			return *rm.Rules, true, nil
		}
	}
	var r records.Rules
	var ok bool
	err := e.view(func(tx *kernel.Tx) error {
		var err error
		r, ok, err = tx.Rules()
		return err
	})
	return r, ok, err
}

// checkModelRules checks the adopted rules taken from the read model (an
// agent outside a sandbox can rewrite it, checksums and all) against the
// store's as it opens (adopt.CheckModel): on a difference they are resolved
// again from the store, before anything is decided under its lock or adopted.
func (e *Engine) checkModelRules(s *kernel.Store) {
	if !e.fromModel {
		return
	}
	e.fromModel = false
	if same, err := adopt.CheckModel(s, e.modelRules, e.modelRev); err != nil {
		e.rules = e.rules.with(func(n *Rules) { n.specErr = err })
	} else if !same {
		e.rulesGen++
		e.refreshRules(context.Background())
	}
}

// resolveRules makes the adopted revision the rules in effect, writing
// nothing (what it finds to record waits for AdoptTightening): it
// completes r, a Rules with its disk spec read (loadDisk) that nobody
// holds yet, makes it this engine's rules and returns it; r does not
// change after.
// With no store yet nothing is adopted (the first write adopts the
// files, as `loopx init` does). A disk spec that does not load stays the
// spec error (decisions fail closed) when nothing was adopted yet, and for
// `vet`/`check` (onDisk); otherwise the adopted revision stays in effect
// and the error is pending (DiskError). Disk equal to the adopted
// revision: nothing to do. A change that only tightens (data.loopx.adopt)
// and leaves the policies alone is pending with OnlyTightens, and this
// engine evaluates the files (AdoptTightening adopts them); anything else
// is pending, and the adopted spec and policies are what this engine
// evaluates.
func (e *Engine) resolveRules(ctx context.Context, r *Rules) *Rules {
	e.rules = r // what resolving reads (diskRules, the store's open) sees r
	r.pending = nil
	if r.diskErr != nil && e.onDisk {
		return r
	}
	if _, err := os.Stat(filepath.Join(e.StateDir(), kernel.DBFile)); err != nil {
		return r
	}
	disk, err := e.diskRules()
	if err != nil && r.diskErr == nil {
		return r
	}
	cur, ok, err := e.adoptedRules()
	if err != nil {
		return r // the store's own error is reported by the decision (fail closed)
	}
	e.adoptedSeen = [2]string{cur.SpecHash, cur.PolicyHash}
	if !ok {
		return r // the next write adopts the files (firstAdoption)
	}
	if r.diskErr != nil {
		r.pending = adopt.NewPending(cur, disk, nil, errs.Summary(r.diskErr))
		e.useAdopted(r, cur)
		return r
	}
	if cur.SpecHash == disk.SpecHash && cur.PolicyHash == disk.PolicyHash {
		e.checkCachedExport(r, cur)
		return r
	}
	var loosens, tightens []parts.Reason
	if cur.SpecHash != disk.SpecHash {
		loosens, tightens = adopt.Classify(ctx, cur.SpecJSON, r.disk.JSON)
		if len(loosens) == 0 && r.disk.Cached && !e.onDisk {
			// Adopting needs the files' own export, never the cache's
			// (anyone who writes .loopx/cache/ could make a loosening look
			// like a tightening): evaluate them and classify again.
			e.freshDisk(r, nil)
			r.spec, r.specErr = r.disk, r.diskErr
			return e.resolveRules(ctx, r)
		}
	}
	if cur.PolicyHash != disk.PolicyHash {
		loosens = append(loosens, adopt.PolicyChanged(cur, disk, scaffold.SpecDirName+"/"+rulebook.DirName))
	}
	if len(loosens) == 0 {
		// Pending until AdoptTightening adopts it: resolving writes
		// nothing. Only decision paths adopt: vet, check and policy read
		// the files and write no state (the next decision adopts them).
		r.pending = adopt.NewPending(cur, disk, nil, "")
		r.pending.OnlyTightens, r.pending.Tightens = true, tightens
		r.tightening = disk
		return r
	}
	r.pending = adopt.NewPending(cur, disk, loosens, "")
	r.pending.Tightens = tightens
	if e.onDisk {
		return r
	}
	e.useAdopted(r, cur)
	return r
}

// loadDisk reads the spec files on disk into r.disk, which is also the
// spec r evaluates until resolving says otherwise, and returns r: from the cache when
// it holds their hash (checked against the adopted export before it is
// relied on: checkCachedExport, freshDisk), except for an engine that
// reads the files as they are (vet, check, policy), which evaluates them
// and never reads the cache.
func (e *Engine) loadDisk(r *Rules) *Rules {
	if e.onDisk {
		r.disk, r.diskErr = specs.Load(e.SpecDir())
	} else {
		r.disk, r.diskErr = specs.LoadCached(e.SpecDir(), e.cacheDir())
	}
	r.spec, r.specErr = r.disk, r.diskErr
	return r
}

// cacheDir is .loopx/cache, where the exported specs are cached.
func (e *Engine) cacheDir() string { return filepath.Join(e.StateDir(), "cache") }

// checkCachedExport (resolving r) makes sure a spec read from the cache for the adopted
// hash is the adopted export (the cache is not trusted). Its
// export hash is compared with the adopted one (cur.ExportHash, or
// computed from cur.SpecJSON in a store that has none); on a mismatch the
// files are evaluated again (freshDisk audits a forged cache file and
// replaces it), and when that still is not the adopted export the stored
// adopted export is what this engine evaluates.
func (e *Engine) checkCachedExport(r *Rules, cur records.Rules) {
	if r.disk == nil || !r.disk.Cached {
		return
	}
	want := cur.ExportHash
	if want == "" {
		want = specs.ExportHash(cur.SpecJSON)
	}
	if r.disk.ExportHash() == want {
		return
	}
	e.freshDisk(r, nil)
	r.spec, r.specErr = r.disk, r.diskErr
	if r.diskErr != nil || r.disk.Hash != cur.SpecHash || r.disk.ExportHash() != want {
		e.useAdopted(r, cur)
	}
}

// freshDisk replaces, in r (being built), a spec read from the cache (r.disk.Cached) with the
// files evaluated anew (specs.LoadFresh: never the cache, in the budgeted
// child), as every adoption needs. When the files still have the cached
// hash but the cache held another export, the cache file was forged or
// damaged: it is replaced and a rules.cache_mismatch event (in tx when
// given, else held for AdoptTightening's own transaction) tells a human (`loopx events --kind
// rules`, `loopx review`).
func (e *Engine) freshDisk(r *Rules, tx *kernel.Tx) {
	if r.disk == nil || !r.disk.Cached {
		return
	}
	cached := r.disk
	path := specs.CachePath(e.cacheDir(), cached.Hash)
	r.disk, r.diskErr = specs.LoadFresh(e.SpecDir(), e.cacheDir())
	if r.diskErr != nil || r.disk.Hash != cached.Hash || bytes.Equal(r.disk.JSON, cached.JSON) {
		return
	}
	rel := filepath.ToSlash(filepath.Join(scaffold.StateDirName, "cache", filepath.Base(path)))
	ev := adopt.CacheMismatchEvent(cached, r.disk, rel)
	if tx != nil {
		_ = tx.AppendEvent(ev)
		return
	}
	e.held = append(e.held, ev)
}

// resolveFresh resolves the rules in effect again (resolveRules) on the
// files evaluated anew when the spec was read from the cache (freshDisk):
// what a human is shown to adopt (loopx adopt, the adoption gate's
// question) is never the cache's word.
func (e *Engine) resolveFresh(ctx context.Context) {
	if e.rules.disk == nil || !e.rules.disk.Cached {
		return
	}
	r := e.rules.with(func(n *Rules) {
		e.freshDisk(n, nil)
		n.withPolicies(n.disk, n.diskErr, givenUser(n.book().Load()))
	})
	e.resolveRules(ctx, r)
	_ = e.AdoptTightening() // a failure leaves the rules as resolved (decisions read the store's)
}

// useAdopted makes the adopted revision cur the spec and policies r (being
// built) evaluates (the stored export: no CUE is evaluated). An export
// that does not decode is the spec error (decisions fail closed). The
// queries r prepared stay: none was prepared when r is new, and when r is
// a copy (restoreByGate) they were prepared over this revision already.
func (e *Engine) useAdopted(r *Rules, cur records.Rules) {
	spec, err := specs.FromExport(cur.SpecHash, slices.Sorted(maps.Keys(cur.SpecFiles)), cur.SpecJSON)
	if err != nil {
		r.spec, r.specErr = nil, err
		return
	}
	r.spec, r.specErr = spec, nil
	r.user = givenUser(rulebook.Parse(cur.Policies))
}

// adopt records r as the adopted rules in one transaction with a
// rules.adopted event (actor by, why, what loosened and tightened, and extra data such as
// the adopting human's ancestry), and makes the files on disk the rules
// this engine evaluates.
func (e *Engine) adopt(r records.Rules, by, why string, loosens, tightens []parts.Reason, extra map[string]any) error {
	if r.SpecJSON == nil {
		return errors.New("the spec on disk does not load")
	}
	r.By = by
	e.rulesChecked = true
	err := e.update(func(tx *kernel.Tx) error {
		r.AdoptedAt = tx.Now()
		if err := tx.PutRules(r); err != nil {
			return err
		}
		return tx.AppendEvent(adopt.AdoptedEvent(r, by, why, loosens, tightens, extra))
	})
	if err != nil {
		return err
	}
	e.rules = e.rules.with(func(n *Rules) { n.pending = nil })
	e.adoptedSeen = [2]string{r.SpecHash, r.PolicyHash}
	return nil
}

// AdoptTightening records what resolving the rules (New, and each time
// loopx/ is read again) found for loopx to record: a change of loopx/ that
// only tightens (data.loopx.adopt) and leaves the policies alone is
// adopted, by loopx, with a rules.adopted event; a spec cache found forged
// is audited first (rules.cache_mismatch, in its own transaction).
// Nothing to record writes nothing; an engine over the files as they are
// (Options.OnDisk) never adopts. Pending is nil afterwards whatever
// happened: a failed write leaves the store's revision adopted, and the
// next engine resolves again. Errors: the store's (it is opened).
func (e *Engine) AdoptTightening() error {
	if len(e.held) > 0 {
		held := e.held
		e.held = nil
		_ = e.update(func(tx *kernel.Tx) error {
			for _, ev := range held {
				if err := tx.AppendEvent(ev); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if e.onDisk || e.rules.pending == nil || !e.rules.pending.OnlyTightens {
		return nil
	}
	// Opening the store can resolve the rules again (checkModelRules: the
	// read model's rules were not the store's), which adopts what it finds.
	gen := e.rulesGen
	if _, err := e.Store(); err != nil {
		e.rules = e.rules.with(func(n *Rules) { n.pending = nil })
		return err
	} else if e.rulesGen != gen {
		return nil
	}
	p, disk := e.rules.pending, e.rules.tightening
	e.rules = e.rules.with(func(n *Rules) { n.pending = nil })
	return e.adopt(disk, "loopx", "only tightens", nil, p.Tightens, nil)
}

// AdoptPreview says what Adopt would adopt, writing nothing: the files'
// revision, whether it differs from the adopted one, and what it loosens.
// Errors: the spec on disk does not load (its specs.Errors, exit 2);
// errs.No rules_changed when loopx/ changed since this engine read
// it (what loosens was judged on another revision).
func (e *Engine) AdoptPreview() (adopt.Result, error) {
	res := adopt.Result{Loosens: []parts.Reason{}}
	if _, err := e.Store(); err != nil { // the adopted rules are the store's
		return res, err
	}
	// What a human adopts is judged on the files evaluated anew.
	e.resolveFresh(context.Background())
	if e.rules.diskErr != nil {
		return res, e.rules.diskErr
	}
	disk, err := e.diskRules()
	if err != nil {
		return res, err
	}
	res.Adopted = adopt.RevisionOf(disk)
	changedSince := refused("rules_changed", "loopx/ changed while loopx adopt read it: nothing adopted; run it again", nil)
	if disk.SpecJSON == nil {
		return res, changedSince
	}
	if e.rules.pending != nil {
		if e.rules.pending.Disk != res.Adopted {
			return res, changedSince
		}
		res.Loosens, res.Tightens, res.Changed = e.rules.pending.Loosens, e.rules.pending.Tightens, true
		return res, nil
	}
	cur, ok, err := e.adoptedRules()
	if err != nil {
		return res, err
	}
	if !ok {
		res.Changed = true // a store from before adoption: the first adoption
		return res, nil
	}
	if cur.SpecHash != disk.SpecHash || cur.PolicyHash != disk.PolicyHash {
		// Nothing was pending when this engine read loopx/: a tightening
		// edit was adopted then, so this revision came later.
		return res, changedSince
	}
	return res, nil
}

// Adopt makes the files in loopx/ the rules in effect (`loopx adopt`), a
// human's decision: the caller decides the channel first (DecideAdopt).
// Errors: the spec on disk does not load (its specs.Errors, exit 2);
// errs.No rules_changed when loopx/ changed since this engine read
// it, or o.Expect is set and the files are no longer that revision.
// Policies are adopted as they are: one that does not compile makes
// decisions deny (policy_error) until it is fixed and adopted again.
func (e *Engine) Adopt(ctx context.Context, o adopt.Options) (adopt.Result, error) {
	res, err := e.AdoptPreview()
	if err != nil {
		return res, err
	}
	if o.Expect != nil && *o.Expect != res.Adopted {
		return res, refused("rules_changed", fmt.Sprintf("loopx/ changed since it was shown (spec %s, policies %s; now spec %s, policies %s): nothing adopted; run loopx adopt again to see the change",
			decision.ShortHash(o.Expect.Spec), decision.ShortHash(o.Expect.Policy), decision.ShortHash(res.Adopted.Spec), decision.ShortHash(res.Adopted.Policy)), nil)
	}
	if !res.Changed {
		return res, nil
	}
	disk, err := e.diskRules()
	if err != nil {
		return res, err
	}
	if adopt.RevisionOf(disk) != res.Adopted {
		return res, refused("rules_changed", "loopx/ changed while loopx adopt ran: nothing adopted; run it again", nil)
	}
	// The adopted revision takes effect in the adoption's own transaction
	// (housekeeping cancels the gates it removed, with their events).
	e.rules = e.rules.with(func(n *Rules) {
		n.withPolicies(n.disk, n.diskErr, givenUser(rulebook.Parse(disk.Policies)))
	})
	var extra map[string]any
	if o.Ancestry != nil {
		extra = map[string]any{"ancestry": o.Ancestry}
	}
	return res, e.adopt(disk, "human", "adopted by a human", res.Loosens, res.Tightens, extra)
}

// DecideAdopt decides whether an adoption (`loopx adopt`), or with restore
// a restore (`loopx adopt --restore`), may come through channel ch: the
// rule data.loopx.adopt.confirm or .restore (repair's channel checks, and at
// a terminal "adopt" or "restore" typed back), compiled with the built-in
// bundle only (no user policy takes part, so a broken one cannot lock the
// human out). A terminal channel nobody was asked on yet (ch.Typed nil)
// denies with confirmation_pending alone when the channel is otherwise a
// human's.
func (e *Engine) DecideAdopt(ctx context.Context, ch input.Channel, restore bool) decision.Decision {
	ref, name := "data.loopx.adopt.confirm", "adopt"
	if restore {
		ref, name = "data.loopx.adopt.restore", "restore"
	}
	pq, err := e.rules.compileRef(ctx, ref, nil)
	if err != nil {
		return decision.Deny("policy_error", err.Error(), ref)
	}
	in := input.Input{Query: query.GateAnswer.Name, Now: records.RFC3339(e.Now()), Answer: &input.AnswerFacts{Actor: "human", Channel: ch}}
	d := e.evalPrepared(ctx, pq, ref, query.GateAnswer, in)
	d.Query = name
	return d
}

// AuditRefusal appends an event of kind (rules.adopt_refused,
// agent.register_refused, store.accept_refused, review.mark_refused …)
// when err is a refusal (errs.No) of the human-only command what ("loopx
// agent register"), in its own transaction: actor ("" is "human") tried
// it, subject names what it was about, the message is what was refused and
// why, Data {"code"}. Other errors are ignored, and so is a store that
// cannot be written.
func (e *Engine) AuditRefusal(kind, what, actor, subject string, err error) {
	e.audit(err, actor+" "+what, func(tx *kernel.Tx, re *errs.Error) error { return audit.Command(tx, kind, what, actor, subject, re) })
}

// audit is audit.Logged over this engine's store.
func (e *Engine) audit(err error, who string, write func(tx *kernel.Tx, re *errs.Error) error) {
	audit.Logged(err, who, e.StateDir(), e.Now(), e.update, write)
}

// Restore writes the adopted revision back into loopx/ (`loopx adopt
// --restore`): spec files and user policies, their tests included, are
// made exactly the adopted ones (files loopx would read that are not in it
// are removed). It returns the paths written or removed (with preview:
// would write, writing nothing); expect (a preview's, nil: any) no longer
// those writes nothing (errs.No rules_changed). Errors: errs.Usage
// no_adopted_rules when nothing was adopted yet; I/O errors.
func (e *Engine) Restore(expect []string, preview bool) ([]string, error) {
	if _, err := e.Store(); err != nil { // the adopted rules are the store's
		return nil, err
	}
	cur, ok, err := e.adoptedRules()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, Usagef("no_adopted_rules", "no rules were adopted yet in this project (the first write adopts loopx/ as it is)")
	}
	disk := e.diskFiles()
	if paths := adopt.RestorePaths(disk, cur); preview {
		return paths, nil
	} else if expect != nil && !slices.Equal(expect, paths) {
		return nil, refused("rules_changed", "loopx/ changed since the files to restore were shown: nothing restored; run loopx adopt --restore again", nil)
	}
	changed, werr := adopt.WriteBack(e.root, disk, cur)
	if werr != nil {
		return nil, werr
	}
	if len(changed) > 0 {
		err = e.update(func(tx *kernel.Tx) error { return tx.AppendEvent(adopt.RestoredEvent(cur, changed)) })
	}
	e.rules = e.rules.with(func(n *Rules) { n.pending = nil })
	return changed, err
}

// firstAdoption records the files on disk as the adopted rules when the
// store holds none (a new project: `loopx init`, or a store from before
// adoption), inside the write's own transaction.
func (e *Engine) firstAdoption(tx *kernel.Tx) error {
	if e.rulesChecked || e.rules.diskErr != nil {
		return nil
	}
	e.rulesChecked = true
	if _, ok, err := tx.Rules(); err != nil || ok {
		return err
	}
	e.rules = e.rules.with(func(n *Rules) { e.freshDisk(n, tx) })
	r, err := e.diskRules()
	if err != nil || r.SpecJSON == nil {
		return nil
	}
	// No event: the first adoption is the project's creation (or an old
	// store meeting this version), and keeps revisions and sequences as
	// they were.
	r.By, r.AdoptedAt = "loopx", tx.Now()
	return tx.PutRules(r)
}

// refreshRules reads loopx/ again (after an agent command may have changed
// it), resolves the rules in effect as New does and adopts what only
// tightens (AdoptTightening).
func (e *Engine) refreshRules(ctx context.Context) {
	r := newRules(e.root)
	r.user = givenUser(r.book().Load())
	e.resolveRules(ctx, e.loadDisk(r))
	_ = e.AdoptTightening() // as in resolveFresh
}

// FollowRules makes the store's adopted revision the rules this engine
// evaluates again when another process moved it (an adoption or a
// restore, a tightening adopted by any command, a store accepted by
// doctor), as a new engine would resolve them: true when the spec or the
// policies in effect changed. A long-running process (watch) calls it on
// every state change. A store it cannot read changes nothing here (the
// next decision reports it, fail closed).
func (e *Engine) FollowRules(ctx context.Context) bool {
	cur, ok, err := e.adoptedRules()
	if err != nil || !ok || [2]string{cur.SpecHash, cur.PolicyHash} == e.adoptedSeen {
		return false
	}
	spec, policy := e.rules.revisions()
	e.rulesGen++
	e.refreshRules(ctx)
	spec2, policy2 := e.rules.revisions()
	return spec2 != spec || policy2 != policy
}

// restoreByGate is adopt.RestoreByGate in a rejecting answer's tx.
func (e *Engine) restoreByGate(tx *kernel.Tx, g records.Gate, actor string) error {
	before, err := adopt.RestoreByGate(tx, e.root, g, e.diskFiles(), actor)
	if before != nil {
		e.rules = e.rules.with(func(n *Rules) {
			e.useAdopted(n, *before)
			n.pending = nil
		})
	}
	return err
}

// diskFiles is loopx/ on disk as far as it reads (diskRules, errors dropped).
func (e *Engine) diskFiles() records.Rules { disk, _ := e.diskRules(); return disk }

// adoptByGate adopts the revision an approved adoption gate names, inside
// the answer's transaction, when loopx/ still holds exactly that revision;
// otherwise nothing is adopted and an event says why (the human runs
// `loopx adopt` after looking again).
func (e *Engine) adoptByGate(tx *kernel.Tx, g records.Gate, actor string) error {
	e.rules = e.rules.with(func(n *Rules) { e.freshDisk(n, tx) })
	disk, err := e.diskRules()
	ev, ok := adopt.GateEvent(g, disk, err == nil && e.rules.diskErr == nil, actor)
	if ok {
		disk.By, disk.AdoptedAt = actor, tx.Now()
		if err := tx.PutRules(disk); err != nil {
			return err
		}
	}
	return tx.AppendEvent(ev)
}
