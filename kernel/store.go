// Package kernel owns loopx's durable state: a buntdb store under an
// exclusive file lock, with typed records for goals, todos, gates, evidence,
// rounds, the ledger, handoffs, agents and the audit event log.
package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/tidwall/buntdb"
)

// File names inside the state directory (.loopx/).
const (
	DBFile   = "state.db"
	LockFile = "state.lock"
)

// ErrNotFound is returned (wrapped) when a record does not exist.
var ErrNotFound = errors.New("not found")

// ErrSchemaTooNew is returned by Open for a store written by a newer loopx.
var ErrSchemaTooNew = errors.New("state store was written by a newer loopx")

// ErrLockTimeout is returned by Open when another process holds the lock
// for longer than Options.LockTimeout.
var ErrLockTimeout = errors.New("timed out waiting for the state lock")

// CodeStore is the code of an unusable store's error (StoreError).
const CodeStore = "store_error"

// StoreError is the error of a store file that is unusable (corrupt,
// unreadable): an errs.Error of kind Internal (exit 3) with code
// store_error reading "state store PATH: ERR", wrapping err. should_run
// fails closed on it.
func StoreError(path string, err error) error {
	return &errs.Error{Kind: errs.Internal, Code: CodeStore, Message: fmt.Sprintf("state store %s: %v", path, err), Err: err}
}

// IsStoreError reports whether err is (or wraps) a StoreError.
func IsStoreError(err error) bool { return errs.CodeOf(err) == CodeStore }

// Options tune Open. The zero value is usable.
type Options struct {
	// Now is the clock (default time.Now); tests set it. Times are stored in UTC.
	Now func() time.Time
	// LockTimeout bounds the wait for state.lock (default 30 s).
	LockTimeout time.Duration
	// AcceptRollback opens a store whose revision is behind the last one
	// published in state.rev (restored from a backup, truncated, or
	// replaced), and makes its revision the published one. Without it such
	// a store is refused with ErrRolledBack.
	AcceptRollback bool
}

// ErrRolledBack is returned (wrapped in a StoreError) by Open when
// state.db is missing or behind the revision this project last published
// in state.rev: committed transactions (spent quota, answered or open
// gates) would silently disappear. `loopx doctor --accept-store` accepts
// the store as it is.
var ErrRolledBack = errors.New("the store is behind the last committed revision")

// Recovery describes a torn tail that buntdb dropped on open.
type Recovery struct {
	// DroppedBytes is how many bytes of an incomplete last write were cut.
	DroppedBytes int64 `json:"dropped_bytes"`
	// Completed is true when the last transaction was found partly applied
	// and completed from its journal (nothing acknowledged is lost).
	Completed bool `json:"completed"`
	// RolledBackFrom and RolledBackTo are set when a store behind the
	// published revision was accepted (Options.AcceptRollback).
	RolledBackFrom uint64 `json:"rolled_back_from,omitempty"`
	RolledBackTo   uint64 `json:"rolled_back_to,omitempty"`
	// EventsCompleted is true when the last transaction's audit events
	// were written to the event log from its journal; EventsDropped is how
	// many bytes were cut from the log's tail (a torn record, or bytes no
	// commit wrote; kept in .loopx/events.log.torn); EventsSalvaged says
	// what was wrong with a damaged log accepted as its verifiable records
	// (Options.AcceptRollback).
	EventsCompleted bool   `json:"events_completed,omitempty"`
	EventsDropped   int64  `json:"events_dropped_bytes,omitempty"`
	EventsSalvaged  string `json:"events_salvaged,omitempty"`
	// At is when it was noticed.
	At time.Time `json:"at"`
}

// Store is an open kernel store. It holds .loopx/state.lock until Close;
// buntdb is single-process, so no other process opens the file meanwhile.
// A Store is safe for use by one goroutine at a time per transaction, as buntdb.
type Store struct {
	dir      string
	db       *buntdb.DB
	lock     *flock.Flock
	now      func() time.Time
	recovery *Recovery
	// head is the event log's head as the last commit left it; logErr the
	// failure of a log write after its journal committed (the store then
	// refuses commits until reopened, which completes the write).
	head   LogHead
	logErr error
	// migrated is the migration Open ran (nil when none).
	migrated *Migration
	// crashAt, set by tests only, stands for a crash right after a
	// commit's journal is durable: it gets the journal and ends the commit
	// there (returning its error).
	crashAt func(j journal) error
}

// Open opens (creating if needed) the store in dir (a project's .loopx/
// directory), after taking an exclusive flock on dir/state.lock.
// Errors: ErrLockTimeout; a StoreError for an unreadable or corrupt file;
// ErrSchemaTooNew.
func Open(dir string, o Options) (*Store, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = 30 * time.Second
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, StoreError(dir, err)
	}
	lk := flock.New(filepath.Join(dir, LockFile))
	ctx, cancel := context.WithTimeout(context.Background(), o.LockTimeout)
	defer cancel()
	ok, err := lk.TryLockContext(ctx, 5*time.Millisecond)
	if err != nil || !ok {
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w %s (%s)", ErrLockTimeout, filepath.Join(dir, LockFile), o.LockTimeout)
		}
		return nil, StoreError(filepath.Join(dir, LockFile), err)
	}
	s, err := openLocked(dir, o)
	if err != nil {
		_ = lk.Unlock()
		return nil, err
	}
	s.lock = lk
	return s, nil
}

func openLocked(dir string, o Options) (*Store, error) {
	path := filepath.Join(dir, DBFile)
	published, _ := ReadRevFile(dir)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && published > 0 && !o.AcceptRollback {
		return nil, StoreError(path, fmt.Errorf("%w: state.db is missing, but this project reached revision %d; restore it (e.g. from %s) or run `loopx doctor --accept-store` to start over from an empty store", ErrRolledBack, published, BackupFile))
	}
	var before int64 = -1
	if fi, err := os.Stat(path); err == nil {
		if fi.Size() == 0 {
			// Open writes the schema version at once, so a store that exists
			// but is empty was truncated or clobbered: refuse rather than
			// start over with no quota spent and no gates open.
			return nil, StoreError(path, errors.New("the file is empty (truncated?); restore it from state.db.bak or a backup, or delete it to start a new store"))
		}
		before = fi.Size()
		f, err := os.Open(path)
		if err != nil {
			return nil, StoreError(path, err)
		}
		f.Close()
	}
	db, err := buntdb.Open(path)
	if err != nil {
		return nil, StoreError(path, err)
	}
	var cfg buntdb.Config
	if err := db.ReadConfig(&cfg); err != nil {
		db.Close()
		return nil, StoreError(path, err)
	}
	cfg.SyncPolicy = buntdb.Always
	if err := db.SetConfig(cfg); err != nil {
		db.Close()
		return nil, StoreError(path, err)
	}
	s := &Store{dir: dir, db: db, now: func() time.Time { return o.Now().UTC() }}
	if before >= 0 {
		if fi, err := os.Stat(path); err == nil && fi.Size() < before {
			s.recovery = &Recovery{DroppedBytes: before - fi.Size(), At: s.now()}
		}
	}
	schema, err := s.schema()
	if err != nil {
		db.Close()
		return nil, err
	}
	j, err := s.readJournal()
	if err != nil {
		db.Close()
		return nil, StoreError(path, err)
	}
	// The log before the records: a commit writes them in that order.
	var repair *logRepair
	if schema == 0 || schema >= SchemaVersion {
		if repair, err = s.recoverLog(j, o.AcceptRollback); err != nil {
			db.Close()
			if IsStoreError(err) {
				return nil, err
			}
			return nil, StoreError(s.EventsPath(), err)
		}
	}
	redone, err := s.redoJournal(j)
	if err != nil {
		db.Close()
		return nil, StoreError(path, err)
	}
	if err := s.stampOrMigrate(schema); err != nil {
		db.Close()
		return nil, err
	}
	if (redone || repair != nil) && s.recovery == nil {
		s.recovery = &Recovery{At: s.now()}
	}
	if repair != nil {
		s.recovery.EventsCompleted, s.recovery.EventsDropped, s.recovery.EventsSalvaged = repair.Completed, repair.Dropped, repair.Salvaged
	}
	if rev, err := s.Revision(); err == nil && published > rev {
		if !o.AcceptRollback {
			db.Close()
			return nil, StoreError(path, fmt.Errorf("%w: state.db is at revision %d, but this project reached revision %d (truncated, restored or replaced?); restore it, or run `loopx doctor --accept-store` to continue from revision %d", ErrRolledBack, rev, published, rev))
		}
		publishRev(dir, rev)
		if s.recovery == nil {
			s.recovery = &Recovery{At: s.now()}
		}
		s.recovery.RolledBackFrom, s.recovery.RolledBackTo = published, rev
	}
	if s.recovery != nil {
		s.recovery.Completed = redone
	}
	if s.recovery != nil {
		r := *s.recovery
		_ = s.Update(func(tx *Tx) error {
			if err := tx.putJSON(keyRecovery, r); err != nil {
				return err
			}
			data := map[string]any{"dropped_bytes": r.DroppedBytes, "completed": r.Completed}
			if r.EventsCompleted || r.EventsDropped > 0 || r.EventsSalvaged != "" {
				data["events_completed"], data["events_dropped_bytes"] = r.EventsCompleted, r.EventsDropped
			}
			if r.EventsSalvaged != "" {
				data["events_salvaged"] = r.EventsSalvaged
			}
			return tx.AppendEvent(Event{Kind: "store.recovered", Actor: "loopx",
				Message: recoveryMessage(r), Data: data})
		})
	}
	if s.migrated != nil {
		if err := s.auditMigration(); err != nil {
			db.Close()
			return nil, StoreError(path, err)
		}
	}
	return s, nil
}

// schema reads the store's schema version (0 for a new store). Errors: a
// StoreError for a value that is not a number, ErrSchemaTooNew.
func (s *Store) schema() (int, error) {
	var v int
	err := s.db.View(func(tx *buntdb.Tx) error {
		val, err := tx.Get(keySchema)
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		v, err = strconv.Atoi(val)
		return err
	})
	if err != nil {
		return 0, StoreError(s.Path(), fmt.Errorf("reading schema version: %w", err))
	}
	if v > SchemaVersion {
		return 0, fmt.Errorf("%w: %s has schema %d, this loopx reads up to %d; upgrade loopx", ErrSchemaTooNew, s.Path(), v, SchemaVersion)
	}
	return v, nil
}

// Path is the store file's path.
func (s *Store) Path() string { return filepath.Join(s.dir, DBFile) }

// Now is the store's clock, in UTC.
func (s *Store) Now() time.Time { return s.now() }

// Recovered reports the torn tail dropped when this process opened the
// store, or nil.
func (s *Store) Recovered() *Recovery { return s.recovery }

// LastRecovery reports the last torn tail ever dropped (kept in the store
// for `loopx doctor`), or nil.
func (s *Store) LastRecovery() (*Recovery, error) {
	var r *Recovery
	err := s.View(func(tx *Tx) error {
		var rec Recovery
		ok, err := tx.getJSON(keyRecovery, &rec)
		if ok {
			r = &rec
		}
		return err
	})
	return r, err
}

// Close shrinks the file when it has grown (ShrinkIfGrown, best effort:
// the store stays valid whatever happens), closes the database (fsyncing
// it) and releases the lock.
func (s *Store) Close() error {
	_, _ = s.ShrinkIfGrown()
	err := s.db.Close()
	if s.lock != nil {
		if uerr := s.lock.Unlock(); err == nil {
			err = uerr
		}
	}
	return err
}

// Shrink rewrites the append-only file to its live records. Call it under
// the lock (a Store always holds it).
func (s *Store) Shrink() error { return s.db.Shrink() }

// View runs fn in a read-only transaction.
func (s *Store) View(fn func(tx *Tx) error) error {
	return s.db.View(func(btx *buntdb.Tx) error {
		return fn(&Tx{s: s, tx: btx, now: s.now()})
	})
}

// Update runs fn in ONE read-write buntdb transaction: every write fn makes
// commits together or not at all (fn's error rolls everything back). The
// global revision grows by one, and every goal whose records fn touched
// gets that revision as its Rev. After a commit that wrote something, the
// new revision is published in .loopx/state.rev (RevFile) for watchers.
func (s *Store) Update(fn func(tx *Tx) error) error {
	// Phase 1: run fn in a buntdb transaction that is rolled back, capturing
	// every key it sets. fn sees its own writes; nothing reaches the file.
	var done *Tx
	err := s.db.Update(func(btx *buntdb.Tx) error {
		tx := &Tx{s: s, tx: btx, writable: true, now: s.now(), touched: map[string]bool{}, changes: map[string]string{}}
		done = tx
		rev, err := tx.counter(keyRev)
		if err != nil {
			return err
		}
		tx.rev = rev + 1
		if err := fn(tx); err != nil {
			return err
		}
		if !tx.wrote {
			return errCaptured
		}
		if err := tx.set(keyRev, strconv.FormatUint(tx.rev, 10)); err != nil {
			return err
		}
		if newest, _ := tx.newest(); tx.now.After(newest) {
			if err := tx.set(keyNewest, tx.now.Format(time.RFC3339Nano)); err != nil {
				return err
			}
		}
		for g := range tx.touched {
			gs, err := tx.Goal(g)
			if err != nil {
				return err
			}
			gs.Rev = tx.rev
			gs.UpdatedAt = tx.now
			if err := tx.putJSON(keyGoal(g), gs); err != nil {
				return err
			}
		}
		if tx.seqDirty {
			if err := tx.set(keySeq, strconv.FormatUint(tx.seq, 10)); err != nil {
				return err
			}
		}
		return errCaptured
	})
	if !errors.Is(err, errCaptured) {
		return err
	}
	if !done.wrote {
		return nil
	}
	// Phases 2 and 3: the journal, then the changes (journal.go).
	if err := s.commitJournaled(done); err != nil {
		return err
	}
	publishRev(s.dir, done.rev) // the change marker for watchers (marker.go)
	return nil
}

// Revision is the store's global revision (+1 per committed Update).
func (s *Store) Revision() (uint64, error) {
	var rev uint64
	err := s.View(func(tx *Tx) error {
		var err error
		rev, err = tx.counter(keyRev)
		return err
	})
	return rev, err
}

// NewestInstant is the newest instant a commit of this store recorded (the
// zero time for a store that predates the record). A clock earlier than it
// was moved back since that commit (README "One clock").
func (s *Store) NewestInstant() (time.Time, error) {
	var t time.Time
	err := s.View(func(tx *Tx) error {
		var err error
		t, err = tx.newest()
		return err
	})
	return t, err
}

// newest reads keyNewest; the zero time when it is absent.
func (tx *Tx) newest() (time.Time, error) {
	v, err := tx.tx.Get(keyNewest)
	if errors.Is(err, buntdb.ErrNotFound) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339Nano, v)
}

// Message says what the recovery did, in one line (the store.recovered
// event's message).
func (r Recovery) Message() string { return recoveryMessage(r) }

func recoveryMessage(r Recovery) string {
	if r.RolledBackFrom > 0 {
		return fmt.Sprintf("accepted a store at revision %d behind the published revision %d", r.RolledBackTo, r.RolledBackFrom)
	}
	var parts []string
	if r.DroppedBytes > 0 || !r.EventsCompleted && r.EventsDropped == 0 && r.EventsSalvaged == "" {
		parts = append(parts, fmt.Sprintf("dropped a torn tail of %d bytes on open", r.DroppedBytes))
	}
	if r.Completed {
		parts = append(parts, "the last transaction was completed from its journal")
	}
	if r.EventsCompleted {
		parts = append(parts, "the last transaction's audit events were written to "+EventsFile+" from its journal")
	}
	switch {
	case r.EventsSalvaged != "":
		parts = append(parts, fmt.Sprintf("accepted %s as its verifiable records (%d bytes after them kept in %s): %s", EventsFile, r.EventsDropped, eventsTornFile, r.EventsSalvaged))
	case r.EventsDropped > 0:
		parts = append(parts, fmt.Sprintf("cut %d bytes no commit wrote from the end of %s (kept in %s)", r.EventsDropped, EventsFile, eventsTornFile))
	}
	return strings.Join(parts, "; ")
}

// Verify reads every record and returns the keys whose values do not
// decode (JSON records that are not valid JSON): damage that open cannot
// see because buntdb only checks its own framing. `loopx doctor` runs it.
func (s *Store) Verify() ([]string, error) {
	var bad []string
	err := s.db.View(func(btx *buntdb.Tx) error {
		return btx.Ascend("", func(k, v string) bool {
			switch {
			case strings.HasPrefix(k, "meta:"), strings.HasPrefix(k, "ref:"), strings.HasPrefix(k, "count:"):
				if k == keyJournal || k == keyRecovery {
					if !json.Valid([]byte(v)) {
						bad = append(bad, k)
					}
				}
			default:
				if !json.Valid([]byte(v)) {
					bad = append(bad, k)
				}
			}
			return true
		})
	})
	return bad, err
}
