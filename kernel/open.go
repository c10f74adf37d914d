package kernel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/kernel/records"
)

// The remedies of the store's refusals, one per check that refuses: the
// errs.Hint key of the refusal's StoreError. The kernel says what is wrong;
// the command layer words what a person can do about it (errs.SetHints),
// with the hint's Args where its sentence names a value.
const (
	// HintAnchorUnreadable: the anchor cannot be read.
	HintAnchorUnreadable = "store_anchor"
	// HintMoved: state.db is not where the anchor says.
	HintMoved = "store_moved"
	// HintFileMissing: state.db is missing while the anchor names a chain.
	HintFileMissing = "store_missing"
	// HintFileEmpty: state.db exists but is empty.
	HintFileEmpty = "store_empty"
	// HintCorrupt: buntdb cannot read state.db.
	HintCorrupt = "store_corrupt"
	// HintNoRecords: state.db holds no records while the anchor names a
	// chain.
	HintNoRecords = "store_no_records"
	// HintSchemaTooNew: a newer loopx wrote the store.
	HintSchemaTooNew = "store_schema_too_new"
	// HintSchemaBeforeChain: an anchored project's store has a schema from
	// before the chain.
	HintSchemaBeforeChain = "store_schema_before_chain"
	// HintJournalUnreadable: the chain head block cannot be read.
	HintJournalUnreadable = "store_journal_unreadable"
	// HintBlockHash: the chain head block does not match its hash.
	HintBlockHash = "store_block_hash"
	// HintHeadMismatch: the records do not match the chain head.
	HintHeadMismatch = "store_head_mismatch"
	// HintUnanchored: a store with records has no anchor.
	HintUnanchored = "store_unanchored"
	// HintBehind: the store is behind the anchored revision; Args: the
	// store's revision.
	HintBehind = "store_behind"
	// HintOffChain: the store is off the anchored chain.
	HintOffChain = "store_off_chain"
	// HintEventsDamaged: the event log does not end where the store's last
	// commit left it.
	HintEventsDamaged = "events_damaged"
)

// Hints are every hint key the kernel's errors name (for the command
// layer's test that it words each one).
var Hints = []string{HintAnchorUnreadable, HintMoved, HintFileMissing, HintFileEmpty, HintCorrupt, HintNoRecords,
	HintSchemaTooNew, HintSchemaBeforeChain, HintJournalUnreadable, HintBlockHash, HintHeadMismatch, HintUnanchored,
	HintBehind, HintOffChain, HintEventsDamaged}

// opening is one open of the store in dir, under its lock: the facts the
// checks find, in the order openLocked runs them, and the store they
// build.
type opening struct {
	dir, path string
	o         Options
	now       func() time.Time
	adir      string
	// anchor is the anchor read (anchored: there is one, and it reads).
	anchor   records.Anchor
	anchored bool
	// location is the real path of state.db.
	location string
	// missing: state.db does not exist; before its size before buntdb
	// opened it (-1 when missing).
	missing bool
	before  int64
	s       *Store
	// schema is the store's schema (0: unstamped and empty); created:
	// the store is new and gets stamped.
	schema  int
	created bool
	j       *journal
	repair  *logRepair
	redone  bool
	// events are audited once the store is open; accepted is what a
	// human's AcceptRollback accepted ("" when nothing).
	events   []records.Event
	accepted string
}

// openLocked opens the store in dir, whose lock the caller holds, as a
// sequence of checks: each either lets the next run or refuses the store
// (a StoreError; the refusals a human can repair are logged in the anchor
// directory and name their remedy as an errs.Hint). The database is
// closed again when a check fails.
func openLocked(dir string, o Options) (*Store, error) {
	op := &opening{dir: dir, path: filepath.Join(dir, DBFile), o: o, now: func() time.Time { return o.Now().UTC() }, before: -1}
	for _, step := range []func() error{
		op.findAnchorDir,
		op.checkAnchor,
		op.checkLocation,
		op.checkFile,
		op.openDatabase,
		op.checkSchema,
		op.checkJournal,
		op.recoverEvents,
		op.completeAndStamp,
		op.checkHead,
		op.checkAgainstAnchor,
		op.reanchor,
		op.audit,
	} {
		if err := step(); err != nil {
			if op.s != nil {
				op.s.db.Close()
			}
			return nil, err
		}
	}
	return op.s, nil
}

// refuse is a refusal of the store that a human can repair: logged in the
// anchor directory (the store cannot take an event), and returned as a
// StoreError reading "state store PATH: SENTINEL: WHAT" (sentinel nil:
// no sentinel part) whose data.found is found and whose hint is hint.
func (op *opening) refuse(sentinel error, found, what string, hint errs.Hint) error {
	logRefusal(op.adir, Refusal{At: op.now(), Code: found, Message: (&errs.Error{Message: what, Hint: hint}).Error()})
	err := errors.New(what)
	if sentinel != nil {
		err = fmt.Errorf("%w: %s", sentinel, what)
	}
	e := StoreError(op.path, err).(*errs.Error)
	e.Data = map[string]any{"found": found}
	e.Hint = hint
	return e
}

// findAnchorDir sets the anchor directory: Options.AnchorDir, else the
// project's (AnchorDirOf). It refuses (a StoreError, not logged) when
// there is none.
func (op *opening) findAnchorDir() error {
	op.adir = op.o.AnchorDir
	if op.adir != "" {
		return nil
	}
	var err error
	if op.adir, err = AnchorDirOf(op.dir); err != nil {
		return StoreError(op.path, fmt.Errorf("no anchor directory: %w", err))
	}
	return nil
}

// checkAnchor reads the anchor. It refuses an anchor that does not read
// (ErrTampered, store_anchor), unless AcceptRollback, which goes on as if
// there were none.
func (op *opening) checkAnchor() error {
	a, anchored, err := ReadAnchor(op.adir)
	if err != nil {
		if !op.o.AcceptRollback {
			return op.refuse(ErrTampered, "store_anchor", err.Error(), errs.Hint{Key: HintAnchorUnreadable})
		}
		anchored = false
	}
	op.anchor, op.anchored = a, anchored
	return nil
}

// checkLocation resolves state.db's real path. It refuses a store at
// another path or of another backend than the anchor records (ErrTampered,
// store_moved: .loopx/ replaced or linked elsewhere), unless
// AcceptRollback.
func (op *opening) checkLocation() error {
	realDir, err := filepath.EvalSymlinks(op.dir)
	if err != nil {
		return StoreError(op.path, err)
	}
	op.location = filepath.Join(realDir, DBFile)
	a := op.anchor
	if op.anchored && !op.o.AcceptRollback && (a.Location != op.location || a.Backend != Backend) {
		return op.refuse(ErrTampered, "store_moved", fmt.Sprintf("this project's store is anchored at %s (%s), but %s resolves to %s (.loopx/ replaced or linked elsewhere?)", a.Location, a.Backend, op.path, op.location), errs.Hint{Key: HintMoved})
	}
	return nil
}

// checkFile looks at state.db before buntdb opens it. It refuses, unless
// AcceptRollback, a missing file while the anchor names a chain
// (ErrRolledBack, store_missing), and an empty file (store_missing: open
// writes the schema version at once, so an empty file was truncated or
// clobbered, and starting over would forget spent quota and open gates);
// and a file it cannot open (a StoreError).
func (op *opening) checkFile() error {
	fi, statErr := os.Stat(op.path)
	op.missing = errors.Is(statErr, os.ErrNotExist)
	a, accept := op.anchor, op.o.AcceptRollback
	if op.missing && op.anchored && !accept {
		return op.refuse(ErrRolledBack, "store_missing", fmt.Sprintf("state.db is missing, but this project's chain reached revision %d (%s, anchored in %s)", a.Rev, ShortHash(a.Hash), op.adir), errs.Hint{Key: HintFileMissing})
	}
	if statErr != nil {
		return nil
	}
	if fi.Size() == 0 && !(accept && op.anchored) {
		return op.refuse(ErrRolledBack, "store_missing", "the file is empty (truncated?)", errs.Hint{Key: HintFileEmpty})
	}
	op.before = fi.Size()
	f, err := regularfile.Open(op.path)
	if err != nil {
		return StoreError(op.path, err)
	}
	f.Close()
	return nil
}

// openDatabase opens state.db with buntdb (which drops a torn last record:
// the bytes it cut are the recovery's DroppedBytes), syncing every commit
// and never shrinking on its own (shrink.go shrinks, with a backup, under
// the lock). buntdb is given the file opened without following a link
// (openDB). It refuses a link at state.db (a StoreError wrapping the
// *nofollow.LinkError, logged as link_refused) and a file buntdb cannot
// read (store_corrupt).
func (op *opening) openDatabase() error {
	db, size, err := openDB(op.dir, DBFile)
	if le := (*nofollow.LinkError)(nil); errors.As(err, &le) {
		logRefusal(op.adir, Refusal{At: op.now(), Code: "link_refused", Message: le.Error()})
		e := StoreError(op.path, err).(*errs.Error)
		e.Data = map[string]any{"found": "link_refused"}
		return e
	}
	if err != nil {
		return op.refuse(nil, "store_corrupt", err.Error(), errs.Hint{Key: HintCorrupt})
	}
	if err := configure(db); err != nil {
		db.Close()
		return StoreError(op.path, err)
	}
	op.s = &Store{dir: op.dir, db: db, now: op.now, anchorDir: op.adir, location: op.location}
	if op.before >= 0 && size < op.before {
		op.s.recovery = &Recovery{DroppedBytes: op.before - size, At: op.s.now()}
	}
	return nil
}

// configure makes db sync every commit and never shrink on its own.
func configure(db *buntdb.DB) error {
	var cfg buntdb.Config
	if err := db.ReadConfig(&cfg); err != nil {
		return err
	}
	cfg.SyncPolicy = buntdb.Always
	cfg.AutoShrinkDisabled = true
	return db.SetConfig(cfg)
}

// checkSchema reads the schema stamp first; a store of a schema this loopx
// does not know is refused untouched. An empty unstamped store is new
// (created), unless the anchor names a chain (ErrRolledBack, store_missing:
// emptied or zero-filled; AcceptRollback starts over). It refuses records
// without a stamp and a stamp that is no version (ErrSchemaUnknown,
// store_schema), a newer schema (ErrSchemaTooNew, store_schema), and an
// older schema than the chain's in an anchored project (ErrRolledBack,
// store_behind: an old copy put back), unless AcceptRollback.
func (op *opening) checkSchema() error {
	s, a := op.s, op.anchor
	ver, stamped, err := s.readSchema()
	if err != nil {
		return StoreError(op.path, fmt.Errorf("reading schema version: %w", err))
	}
	op.schema = SchemaVersion
	switch {
	case !stamped && s.empty():
		if op.anchored && !op.o.AcceptRollback {
			return op.refuse(ErrRolledBack, "store_missing", fmt.Sprintf("state.db holds no records (emptied or zero-filled?), but this project's chain reached revision %d (%s)", a.Rev, ShortHash(a.Hash)), errs.Hint{Key: HintNoRecords})
		}
		op.schema, op.created = 0, true
		return nil
	case !stamped:
		return op.refuse(ErrSchemaUnknown, "store_schema", fmt.Sprintf("state.db has records but no schema version; this loopx reads schema %d; it was left untouched", SchemaVersion), errs.Hint{})
	}
	v, perr := parseSchema(ver)
	switch {
	case perr != nil:
		return op.refuse(ErrSchemaUnknown, "store_schema", fmt.Sprintf("%v; this loopx reads schema %d (and migrates older ones); it was left untouched", perr, SchemaVersion), errs.Hint{})
	case v > SchemaVersion:
		return op.refuse(ErrSchemaTooNew, "store_schema", fmt.Sprintf("%s has schema %d, this loopx reads up to %d", op.path, v, SchemaVersion), errs.Hint{Key: HintSchemaTooNew})
	case v < SchemaVersion && op.anchored && !op.o.AcceptRollback:
		return op.refuse(ErrRolledBack, "store_behind", fmt.Sprintf("state.db has schema %d (before the chain), but this project's chain reached revision %d (%s): an old copy was put back?", v, a.Rev, ShortHash(a.Hash)), errs.Hint{Key: HintSchemaBeforeChain})
	}
	op.schema = v
	return nil
}

// checkJournal reads the chain head block (the last transaction's
// journal) and, in a chained store, checks it against its hash before
// anything follows it. It refuses a block that does not read or does not
// match its hash (ErrTampered, store_checksum).
func (op *opening) checkJournal() error {
	j, err := op.s.readJournal()
	if err != nil {
		return op.refuse(ErrTampered, "store_checksum", err.Error(), errs.Hint{Key: HintJournalUnreadable})
	}
	if op.schema >= SchemaVersion && j != nil && (j.Hash == "" || hashBlock(*j) != j.Hash) {
		return op.refuse(ErrTampered, "store_checksum", fmt.Sprintf("the chain block of revision %d does not match its hash", j.Rev), errs.Hint{Key: HintBlockHash})
	}
	op.j = j
	return nil
}

// recoverEvents brings the event log to where the last commit left it
// (the log before the records: a commit writes them in that order), in a
// new or chained store (recoverLog). It refuses a log that does not end
// there (ErrEventsDamaged) unless AcceptRollback keeps its verifiable
// records.
func (op *opening) recoverEvents() error {
	if op.schema != 0 && op.schema < SchemaVersion {
		return nil
	}
	if err := op.s.loadGaps(op.j); err != nil {
		return op.refuse(ErrTampered, "store_checksum", err.Error(), errs.Hint{Key: HintJournalUnreadable})
	}
	repair, err := op.s.recoverLog(op.j, op.o.AcceptRollback)
	if err != nil {
		if IsStoreError(err) {
			return err
		}
		return StoreError(op.s.EventsPath(), err)
	}
	op.repair = repair
	return nil
}

// completeAndStamp completes a partly applied last transaction from its
// journal, then stamps a new store (its genesis block) or migrates an
// older schema (stampOrMigrate's errors).
func (op *opening) completeAndStamp() error {
	redone, over, err := op.s.redoJournal(op.j)
	if err != nil {
		return StoreError(op.path, err)
	}
	op.redone = redone
	for _, o := range over {
		op.events = append(op.events, o.event())
	}
	if op.created {
		if err := op.s.create(); err != nil {
			return StoreError(op.path, err)
		}
		return nil
	}
	return op.s.stampOrMigrate(op.schema)
}

// checkHead checks the records against the chain head (Store.checkHead):
// it refuses a revision, a checksum or a digest that does not match
// (ErrTampered, store_checksum). What the open recovered (a torn tail, a
// completed transaction, a repaired log) is noted for the audit.
func (op *opening) checkHead() error {
	s := op.s
	if err := s.checkHead(); err != nil {
		return op.refuse(ErrTampered, "store_checksum", err.Error(), errs.Hint{Key: HintHeadMismatch})
	}
	if (op.redone || op.repair != nil) && s.recovery == nil {
		s.recovery = &Recovery{At: s.now()}
	}
	if r := op.repair; r != nil {
		s.recovery.EventsCompleted, s.recovery.EventsDropped, s.recovery.EventsSalvaged = r.Completed, r.Dropped, r.Salvaged
		s.recovery.EventsDamaged = r.Damaged
	}
	return nil
}

// checkAgainstAnchor holds the store's head against the anchor's. A new or
// just migrated store without an anchor, one at the anchored head, and one
// ahead of it on the same chain (a crash between a commit and the anchor's
// write: a recovery) open; a store whose head another project's anchor
// records moved here (store.moved). It refuses, unless AcceptRollback
// accepts them as a human's decision (store.accepted): a store without an
// anchor (ErrTampered, store_unanchored), one behind the anchored
// revision (ErrRolledBack, store_behind) and one off the anchored chain
// (ErrTampered, store_off_chain). A missing store that AcceptRollback
// started over is accepted too.
func (op *opening) checkAgainstAnchor() error {
	s, a, accept := op.s, op.anchor, op.o.AcceptRollback
	switch {
	case !op.anchored && (op.created || s.migrated != nil):
	case !op.anchored && s.movedFrom() != "":
		op.events = append(op.events, records.Event{Kind: "store.moved", Actor: "loopx",
			Message: fmt.Sprintf("the project moved: its store (revision %d, %s) was anchored at %s; anchored here", s.chain.Rev, ShortHash(s.chain.Hash), s.movedFrom()),
			Data:    map[string]any{"from": s.movedFrom(), "to": op.location, "rev": s.chain.Rev}})
	case !op.anchored:
		if !accept {
			return op.refuse(ErrTampered, "store_unanchored", fmt.Sprintf("this store (revision %d) has no anchor in %s (the project moved, or the state directory was cleared?)", s.chain.Rev, op.adir), errs.Hint{Key: HintUnanchored})
		}
		op.accepted = fmt.Sprintf("anchored a store found without an anchor, at revision %d (%s)", s.chain.Rev, ShortHash(s.chain.Hash))
	case a.Rev == s.chain.Rev && a.Hash == s.chain.Hash && a.Location == op.location:
	case s.chain.Rev > a.Rev && s.descendsFrom(a):
		if s.recovery == nil {
			s.recovery = &Recovery{At: s.now()}
		}
		s.recovery.AheadFrom = a.Rev
	case op.missing:
		op.accepted = fmt.Sprintf("started over from an empty store; the anchored chain had reached revision %d (%s)", a.Rev, ShortHash(a.Hash))
	case s.chain.Rev < a.Rev:
		if !accept {
			return op.refuse(ErrRolledBack, "store_behind", fmt.Sprintf("state.db is at revision %d, but this project's chain reached revision %d (%s): truncated, restored or replaced?", s.chain.Rev, a.Rev, ShortHash(a.Hash)), errs.Hint{Key: HintBehind, Args: []any{s.chain.Rev}})
		}
		op.accepted = fmt.Sprintf("accepted a store at revision %d (%s) behind the anchored revision %d (%s)", s.chain.Rev, ShortHash(s.chain.Hash), a.Rev, ShortHash(a.Hash))
	default:
		if !accept {
			return op.refuse(ErrTampered, "store_off_chain", fmt.Sprintf("state.db is at revision %d (%s), off this project's chain, whose head is revision %d (%s): replaced by another store?", s.chain.Rev, ShortHash(s.chain.Hash), a.Rev, ShortHash(a.Hash)), errs.Hint{Key: HintOffChain})
		}
		op.accepted = fmt.Sprintf("accepted a store at revision %d (%s) off the anchored chain (revision %d, %s)", s.chain.Rev, ShortHash(s.chain.Hash), a.Rev, ShortHash(a.Hash))
	}
	return nil
}

// reanchor writes the anchor when it does not name this store's head at
// this location already (a write under the lock for nothing otherwise),
// and notes what a human accepted as a store.accepted event.
func (op *opening) reanchor() error {
	s, a := op.s, op.anchor
	if !op.anchored || a.Rev != s.chain.Rev || a.Hash != s.chain.Hash || a.Location != op.location || a.Backend != Backend {
		if err := s.writeAnchor(); err != nil {
			return StoreError(op.path, fmt.Errorf("writing the anchor: %w", err))
		}
	}
	if op.accepted != "" {
		op.events = append(op.events, records.Event{Kind: "store.accepted", Actor: "human", Message: op.accepted,
			Data: map[string]any{"rev": s.chain.Rev, "hash": s.chain.Hash, "anchored_rev": a.Rev, "anchored_hash": a.Hash}})
	}
	return nil
}

// audit records what the open found, in one transaction: the refusals
// waiting in the refusal log, the recovery (store.recovered, kept for
// doctor), then the migration. Refusals wait in the refusal log until the
// store can take them: a human's repair (AcceptRollback) takes them, and
// so does any open that finds the store healthy again without one (it was
// put back: by whom, loopx cannot tell; a store.refused event says so), so
// that a tamper undone before anyone repaired it still reaches review.
func (op *opening) audit() error {
	s := op.s
	refusals, total, first := s.refusalEvents()
	if total > 0 && !op.o.AcceptRollback {
		refusals = append(refusals, records.Event{Kind: "store.refused", Actor: "loopx",
			Message: fmt.Sprintf("the store was refused %d time(s) (first at %s) and opens again at revision %d without a human's repair (doctor --accept-store or --salvage): it was put back as it was", total, first, s.chain.Rev),
			Data:    map[string]any{"found": "store_restored", "rev": s.chain.Rev}})
	}
	events := append(op.events, refusals...)
	if s.recovery != nil {
		s.recovery.Completed = op.redone
		r := *s.recovery
		data := map[string]any{"dropped_bytes": r.DroppedBytes, "completed": r.Completed}
		if r.EventsCompleted || r.EventsDropped > 0 || r.EventsSalvaged != "" {
			data["events_completed"], data["events_dropped_bytes"] = r.EventsCompleted, r.EventsDropped
		}
		if r.EventsSalvaged != "" {
			data["events_salvaged"] = r.EventsSalvaged
		}
		if r.EventsDamaged != "" {
			data["events_damaged"] = r.EventsDamaged
		}
		events = append(events, records.Event{Kind: "store.recovered", Actor: "loopx", Message: recoveryMessage(r), Data: data})
	}
	if len(events) > 0 {
		if err := s.Update(func(tx *Tx) error {
			if s.recovery != nil {
				if err := tx.putJSON(keyRecovery, *s.recovery); err != nil {
					return err
				}
			}
			for _, ev := range events {
				if err := tx.AppendEvent(ev); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return StoreError(op.path, err)
		}
		if len(refusals) > 0 {
			removeRefusals(op.adir)
		}
	}
	if s.migrated != nil {
		if err := s.auditMigration(); err != nil {
			return StoreError(op.path, err)
		}
	}
	return nil
}
