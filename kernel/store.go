// Package kernel owns loopx's durable state: a buntdb store under an
// exclusive file lock, with typed records for goals, todos, gates, evidence,
// rounds, the ledger, handoffs, agents and the audit event log.
package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
)

// File names inside the state directory (.loopx/).
const (
	DBFile   = "state.db"
	LockFile = "state.lock"
)

// ErrNotFound is returned (wrapped) when a record does not exist.
var ErrNotFound = errors.New("not found")

// ErrSchemaTooNew is returned (wrapped in a StoreError) by Open for a
// store stamped with a schema newer than SchemaVersion.
var ErrSchemaTooNew = errors.New("state store was written by a newer loopx")

// ErrSchemaUnknown is returned (wrapped in a StoreError) by Open for a
// store stamped with a schema that is no version at all (zero, negative,
// not a number, missing from a store that has records).
var ErrSchemaUnknown = errors.New("state store has an unknown schema version")

// ErrTampered is returned (wrapped in a StoreError) by Open for a store
// that is not the one this project's anchor records: off the anchor's
// chain, a record whose checksum fails, records that do not match the
// chain head, a store at another location, or a store without an anchor.
var ErrTampered = errors.New("the store is not the one this project committed")

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
	// AcceptRollback opens a store the anchor does not vouch for (missing,
	// behind or off the anchor's chain, at another location, or without an
	// anchor) and re-anchors it: its head becomes the anchor's, audited as
	// a store.accepted event. Without it such a store is refused with
	// ErrRolledBack or ErrTampered. It is `loopx doctor --accept-store`, a
	// human's decision. It never accepts a record whose checksum fails or
	// records that do not match their head (`loopx doctor --salvage`).
	AcceptRollback bool
	// AnchorDir is the anchor directory (default AnchorDirOf(dir)).
	AnchorDir string
	// Held is the state lock of dir its caller keeps (HoldLock): Open,
	// VerifyChainAt and Salvage then take none and Close releases none.
	Held *HeldLock
}

// ErrRolledBack is returned (wrapped in a StoreError) by Open when
// state.db is missing or behind the chain head this project's anchor
// records: committed transactions (spent quota, answered or open gates)
// would silently disappear. `loopx doctor --accept-store` accepts
// the store as it is.
var ErrRolledBack = errors.New("the store is behind the last committed revision")

// Recovery describes a torn tail that buntdb dropped on open.
type Recovery struct {
	// DroppedBytes is how many bytes of an incomplete last write were cut.
	DroppedBytes int64 `json:"dropped_bytes"`
	// Completed is true when the last transaction was found partly applied
	// and completed from its journal (nothing acknowledged is lost).
	Completed bool `json:"completed"`
	// AheadFrom is set when the store was found ahead of its anchor on the
	// same chain (a crash between a commit and the anchor's write) and the
	// anchor advanced from that revision.
	AheadFrom uint64 `json:"ahead_from,omitempty"`
	// EventsCompleted is true when the last transaction's audit events
	// were written to the event log from its journal; EventsDropped is how
	// many bytes were cut from the log's tail (a torn record, or bytes no
	// commit wrote; kept in .loopx/events.log.torn); EventsSalvaged says
	// what was wrong with a damaged log accepted as its verifiable records
	// (Options.AcceptRollback).
	EventsCompleted bool   `json:"events_completed,omitempty"`
	EventsDropped   int64  `json:"events_dropped_bytes,omitempty"`
	EventsSalvaged  string `json:"events_salvaged,omitempty"`
	// EventsDamaged says how the log changed length between its committed
	// ends (damage in the middle, repaired by `loopx doctor --salvage`).
	EventsDamaged string `json:"events_damaged,omitempty"`
	// At is when it was noticed.
	At time.Time `json:"at"`
}

// Store is an open kernel store. It holds .loopx/state.lock until Close;
// buntdb is single-process, so no other process opens the file meanwhile.
// A Store is safe for use by one goroutine at a time per transaction, as buntdb.
type Store struct {
	dir      string
	db       *buntdb.DB
	lock     *stateLock
	now      func() time.Time
	recovery *Recovery
	// head is the event log's head as the last commit left it; logErr the
	// failure of a log write after its journal committed (the store then
	// refuses commits until reopened, which completes the write).
	head   LogHead
	logErr error
	// migrated is the migration Open ran (nil when none).
	migrated *Migration
	// anchorDir and location are the anchor directory and the real path
	// of state.db recorded in the anchor.
	anchorDir string
	location  string
	// chain is the chain's head block and state its state digest (the
	// store holds the lock: nobody else commits); moved caches movedFrom.
	chain journal
	state digest
	moved *string
	// crashAt, set by tests only, stands for a crash right after a
	// commit's journal is durable: it gets the journal and ends the commit
	// there (returning its error).
	crashAt func(j journal) error
	// gaps are the hashes of the gap records repairs committed to the
	// event log (loadGaps; keyGaps).
	gaps map[string]bool
	// crashBeforeJournal, set by tests only, stands for a crash after a
	// transaction's event records are durable and before its journal is
	// written.
	crashBeforeJournal func(j journal) error
}

// Open opens (creating if needed) the store in dir (a project's .loopx/
// directory), after taking an exclusive flock on dir/state.lock.
// Errors: ErrLockTimeout; a StoreError for an unreadable or corrupt file;
// ErrSchemaTooNew; a StoreError wrapping *nofollow.LinkError for a link at
// .loopx/, state.lock or state.db (never followed: the refusal is kept in
// the refusal log, code link_refused, and reaches the event log as a
// store.refused event at the next open that succeeds).
func Open(dir string, o Options) (*Store, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = 30 * time.Second
	}
	lk, err := lockDir(dir, o)
	if err != nil {
		logLinkRefusal(dir, o, err)
		return nil, err
	}
	s, err := openLocked(dir, o)
	if err != nil {
		_ = lk.Unlock()
		return nil, err
	}
	s.lock = lk
	opens.Add(1)
	return s, nil
}

// opens counts the stores this process opened (Opens).
var opens atomic.Uint64

// Opens is how many times this process has opened a store (each open
// replays and checks the whole file): what tests read to show that a
// command opens it once.
func Opens() uint64 { return opens.Load() }

// refusalEvents are the refusal log's lines as store.refused events (for
// a store a human repaired, or found healthy again: review lists them).
// At most the newest maxRefusalEvents lines are imported, and the number
// left out is said in one more event: the file lies outside the store (a
// process outside a sandbox can write it), so it cannot flood the event
// log; of a log longer than what is read (ReadRefusals) or trimmed
// (trimRefusals), of lines that are no refusal loopx writes, and of
// messages cut to maxRefusalMessage, one more event each says so. total
// is the number of lines read, first the instant of the oldest.
func (s *Store) refusalEvents() (out []records.Event, total int, first string) {
	l, _ := readRefusalLog(s.anchorDir)
	rs, skipped := l.lines, l.skipped
	if skipped > 0 {
		out = append(out, records.Event{Kind: "store.refused", Actor: "loopx",
			Message: fmt.Sprintf("the refusal log's oldest %d bytes were not read (only its newest %d are): a log this long was padded, by whoever can write the anchor directory", skipped, maxRefusalsBytes),
			Data:    map[string]any{"found": "refusals_skipped", "skipped_bytes": skipped}})
	}
	if l.malformed > 0 {
		out = append(out, records.Event{Kind: "store.refused", Actor: "loopx",
			Message: fmt.Sprintf("%d line(s) of the refusal log (%d bytes) are no refusal loopx writes and were not imported: it was padded, by whoever can write the anchor directory", l.malformed, l.malformedBytes),
			Data:    map[string]any{"found": "refusals_malformed", "lines": l.malformed, "bytes": l.malformedBytes}})
	}
	if l.cut > 0 {
		out = append(out, records.Event{Kind: "store.refused", Actor: "loopx",
			Message: fmt.Sprintf("%d line(s) of the refusal log carry a message longer than loopx writes (over %d bytes), imported cut: it was padded, by whoever can write the anchor directory", l.cut, maxRefusalMessage),
			Data:    map[string]any{"found": "refusals_cut", "lines": l.cut}})
	}
	if len(rs) == 0 {
		return out, 0, ""
	}
	total, first = len(rs), rs[0].At.Format(time.RFC3339Nano)
	if rs[0].Code == refusalsTrimmed {
		// The trim's own note is always imported: it says the log was
		// padded, however many lines follow it.
		out = append(out, records.Event{Kind: "store.refused", Actor: "loopx", Message: rs[0].Message,
			Data: map[string]any{"found": rs[0].Code, "at": rs[0].At.Format(time.RFC3339Nano)}})
		rs = rs[1:]
	}
	keep := rs
	if n := len(rs) - maxRefusalEvents; n > 0 {
		keep = rs[n:]
		out = append(out, records.Event{Kind: "store.refused", Actor: "loopx",
			Message: fmt.Sprintf("%d older lines of the refusal log were not imported (at most %d are)", n, maxRefusalEvents),
			Data:    map[string]any{"found": "refusals_omitted", "omitted": n}})
	}
	for _, r := range keep {
		out = append(out, records.Event{Kind: "store.refused", Actor: "loopx", Message: r.Message,
			Data: map[string]any{"found": r.Code, "at": r.At.Format(time.RFC3339Nano)}})
	}
	return out, total, first
}

// maxRefusalEvents is how many refusal log lines one open imports.
const maxRefusalEvents = 100

// schema is the store's schema version (0 when unstamped). Errors: the
// stamp is no version.
func (s *Store) schema() (int, error) {
	v, ok, err := s.readSchema()
	if err != nil || !ok {
		return 0, err
	}
	return parseSchema(v)
}

// readSchema reads the schema stamp as stored (stamped false when absent).
func (s *Store) readSchema() (v string, stamped bool, err error) {
	err = s.db.View(func(tx *buntdb.Tx) error {
		val, err := tx.Get(keySchema)
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		v, stamped = val, true
		return nil
	})
	return v, stamped, err
}

// empty reports whether the store holds no record at all.
func (s *Store) empty() bool {
	n := 0
	_ = s.db.View(func(tx *buntdb.Tx) error {
		n, _ = tx.Len()
		return nil
	})
	return n == 0
}

// create stamps an empty store with SchemaVersion and its genesis block.
func (s *Store) create() error {
	return s.db.Update(func(tx *buntdb.Tx) error {
		if _, _, err := tx.Set(keySchema, strconv.Itoa(SchemaVersion), nil); err != nil {
			return err
		}
		return putGenesis(tx, 0, s.head)
	})
}

// putGenesis writes the genesis block of the records in tx at revision
// rev: no previous block, no change set, the event log's head log, the
// digest of every record.
func putGenesis(tx *buntdb.Tx, rev uint64, log LogHead) error {
	d, _, _, err := stateIn(tx)
	if err != nil {
		return err
	}
	b := journal{Rev: rev, Kind: "genesis", Sets: [][2]string{}, State: d.String(), LogFrom: &log, LogTo: &log}
	b.seal()
	raw, err := json.Marshal(b)
	if err != nil {
		return err
	}
	_, _, err = tx.Set(keyJournal, string(raw), nil)
	return err
}

// checkHead loads the chain head and checks the store against it: the
// revision matches, every record's checksum holds, and the digest of all
// records is the head's (a record changed, added or removed anywhere
// does not match).
func (s *Store) checkHead() error {
	b, ok, err := s.readHead()
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("the store has no chain head")
	}
	var d digest
	var revRaw string
	var hasRev bool
	if err := s.db.View(func(tx *buntdb.Tx) error {
		var err error
		d, revRaw, hasRev, err = stateIn(tx)
		return err
	}); err != nil {
		return err
	}
	rev := uint64(0)
	if hasRev {
		var err error
		if rev, err = strconv.ParseUint(payloadOf(keyRev, revRaw), 10, 64); err != nil {
			return fmt.Errorf("record %s: %v", keyRev, err)
		}
	}
	if rev != b.Rev {
		return fmt.Errorf("the store's revision %d is not its chain head's (%d)", rev, b.Rev)
	}
	if d.String() != b.State {
		return fmt.Errorf("the records do not match the chain head at revision %d (a record was changed, added or removed)", b.Rev)
	}
	s.chain, s.state = b, d
	return nil
}

// descendsFrom reports whether the chain from a's head leads to the store's
// head (a store ahead of its anchor after a crash between a commit and the
// anchor's write): the head's previous block is a's, or the blocks in the
// file link a's to the head.
func (s *Store) descendsFrom(a records.Anchor) bool {
	if s.chain.Rev == a.Rev+1 && s.chain.Prev == a.Hash {
		return true
	}
	raw, err := os.ReadFile(s.Path())
	if err != nil {
		return false
	}
	blocks := blocksOf(scanAOF(raw).cmds)
	found := false
	var prev journal
	for _, b := range blocks {
		if !found {
			if b.Rev == a.Rev && b.Hash == a.Hash {
				found, prev = true, b
			}
			continue
		}
		if b.Prev != prev.Hash || b.Rev != prev.Rev+1 {
			return false
		}
		prev = b
	}
	return found && prev.Hash == s.chain.Hash
}

// movedFrom returns the location recorded by another project's anchor
// whose head is exactly this store's (the same store, moved or copied to
// a new path: the anchor is indexed by the project root's real path), ""
// when none is. A store behind or off its chain matches no anchor's head.
func (s *Store) movedFrom() string {
	if s.moved != nil {
		return *s.moved
	}
	from := ""
	defer func() { s.moved = &from }()
	ents, err := os.ReadDir(filepath.Dir(s.anchorDir))
	if err != nil {
		return ""
	}
	for _, e := range ents {
		d := filepath.Join(filepath.Dir(s.anchorDir), e.Name())
		if !e.IsDir() || d == s.anchorDir {
			continue
		}
		if a, ok, err := ReadAnchor(d); err == nil && ok && a.Backend == Backend && a.Rev == s.chain.Rev && a.Hash == s.chain.Hash {
			from = a.Location
			return from
		}
	}
	return ""
}

// writeAnchor records the store's head, backend and location in the anchor.
func (s *Store) writeAnchor() error {
	return writeAnchor(s.anchorDir, records.Anchor{Backend: Backend, Location: s.location, Rev: s.chain.Rev, Hash: s.chain.Hash, At: s.now()})
}

// Head returns the chain head: the revision and block hash of the last
// committed transaction.
func (s *Store) Head() (rev uint64, hash string) { return s.chain.Rev, s.chain.Hash }

// AnchorDir is the anchor directory this store was opened with.
func (s *Store) AnchorDir() string { return s.anchorDir }

// Path is the store file's path.
func (s *Store) Path() string { return filepath.Join(s.dir, DBFile) }

// Now is the store's clock, in UTC.
func (s *Store) Now() time.Time { return s.now() }

// SetClock makes now the store's clock from here on (nil: the system's).
// A store one process keeps open for many commands (engine.Resident)
// takes each command's clock while it holds the store; call it under
// the store's use, never during a transaction.
func (s *Store) SetClock(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	s.now = now
}

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

// Shrink rewrites the append-only file to its live records (shrinkFile).
// Call it under the lock (a Store always holds it).
func (s *Store) Shrink() error { return s.shrinkFile() }

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
	updates.Add(1)
	// Phase 1: run fn in a buntdb transaction that is rolled back, capturing
	// every key it sets. fn sees its own writes; nothing reaches the file.
	var done *Tx
	err := s.db.Update(func(btx *buntdb.Tx) error {
		tx := &Tx{s: s, tx: btx, writable: true, now: s.now(), touched: map[string]bool{}, changes: map[string]string{}, old: map[string]string{}}
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
		stateChanged := tx.changesState()
		if err := tx.set(keyRev, strconv.FormatUint(tx.rev, 10)); err != nil {
			return err
		}
		if stateChanged {
			if err := tx.set(keyStateRev, strconv.FormatUint(tx.rev, 10)); err != nil {
				return err
			}
		} else if _, err := tx.tx.Get(keyStateRev); errors.Is(err, buntdb.ErrNotFound) {
			// A store from before the state revision: it stays at the
			// revision this commit follows.
			if err := tx.set(keyStateRev, strconv.FormatUint(tx.rev-1, 10)); err != nil {
				return err
			}
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
	m, err := s.mark()
	if err != nil {
		return StoreError(s.Path(), err)
	}
	// Phases 2 and 3: the journal, then the changes (journal.go).
	if err := s.commitJournaled(done); err != nil {
		var aj *afterJournal
		if errors.As(err, &aj) && done.prune == nil {
			return s.undoCommit(m, s.Path(), "applying the transaction's records", aj.err)
		}
		return err
	}
	// The anchor, then the change marker for watchers (marker.go). A write
	// the anchor does not name is taken back (undoCommit): it could be
	// rolled back unseen. A prune's log rewrite cannot be taken back; the
	// store is then ahead of its anchor on the same chain, which the next
	// open re-anchors or refuses (an anchor it cannot write), and records.
	if err := s.writeAnchor(); err != nil {
		if done.prune == nil {
			return s.undoCommit(m, filepath.Join(s.anchorDir, AnchorFile), "writing the anchor", err)
		}
		return StoreError(filepath.Join(s.anchorDir, AnchorFile), fmt.Errorf("writing the anchor after a prune: %w (the prune is committed; the next open anchors it)", err))
	}
	publishRev(s.dir, done.rev, s.chain.Hash)
	return nil
}

// updates counts this process's write transactions (WriteTransactions).
var updates atomic.Uint64

// WriteTransactions is how many write transactions (Update calls, whether
// they committed or found nothing to write) this process has run, over
// every store it opened: what tests read to count an operation's writes.
func WriteTransactions() uint64 { return updates.Load() }

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
// was moved back since that commit (docs/trust.md "One clock").
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
	v, err := tx.get(keyNewest)
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
	var parts []string
	if r.AheadFrom > 0 && r.DroppedBytes == 0 && !r.Completed && !r.EventsCompleted && r.EventsDropped == 0 && r.EventsSalvaged == "" && r.EventsDamaged == "" {
		return fmt.Sprintf("the store was ahead of its anchor (revision %d) on the same chain; the anchor advanced", r.AheadFrom)
	}
	if r.DroppedBytes > 0 || !r.EventsCompleted && r.EventsDropped == 0 && r.EventsSalvaged == "" && r.EventsDamaged == "" {
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
	if r.EventsDamaged != "" {
		parts = append(parts, r.EventsDamaged+"; `loopx doctor --salvage` cuts the damaged records (a gap record stands for them)")
	}
	return strings.Join(parts, "; ")
}

// Verify reads every record and returns the keys whose checksum fails or
// whose JSON value does not decode: damage that open cannot see because
// buntdb only checks its own framing. `loopx doctor` runs it.
func (s *Store) Verify() ([]string, error) {
	var bad []string
	err := s.db.View(func(btx *buntdb.Tx) error {
		return btx.Ascend("", func(k, v string) bool {
			p, _, err := unwrap(k, v)
			if err != nil {
				bad = append(bad, k)
				return true
			}
			switch {
			case k == keyJournal || k == keyRecovery:
				if !json.Valid([]byte(p)) {
					bad = append(bad, k)
				}
			case strings.HasPrefix(k, "meta:"), strings.HasPrefix(k, "ref:"), strings.HasPrefix(k, "count:"):
			default:
				if !json.Valid([]byte(p)) {
					bad = append(bad, k)
				}
			}
			return true
		})
	})
	return bad, err
}
