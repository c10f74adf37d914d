package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/internal/fsync"
	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/kernel/records"
)

// keyJournal holds the change set of the last Update (a redo record),
// which is also the chain's head block (chain.go).
const keyJournal = "meta:journal"

// errCaptured ends Update's capture phase (a rollback by design).
var errCaptured = errors.New("kernel: changes captured")

// journal is a transaction's complete change set.
type journal struct {
	Rev uint64 `json:"rev"`
	// Sets are [key, value] pairs in key order.
	Sets [][2]string `json:"sets"`
	// Before maps each key of Sets that held a value before the
	// transaction to beforeSum of that value: what lets a redo tell a
	// record a crash left as it was from one written by someone else. Not
	// part of the block's hash; absent in journals of older stores.
	Before map[string]string `json:"before,omitempty"`
	// LogFrom and LogTo are the event log's head before and after the
	// transaction (nil in a journal written before the log existed).
	LogFrom *LogHead `json:"log_from,omitempty"`
	LogTo   *LogHead `json:"log_to,omitempty"`
	// Log is what the transaction appends to the event log after LogFrom
	// (its events' records), kept until the next commit's journal replaces
	// this one.
	Log string `json:"log,omitempty"`
	// Prune, when set, rewrites the log: the old log's first Prefix bytes,
	// Checkpoint (a checkpoint, or a gap a repair writes), then the old
	// log's bytes from KeepFrom to LogFrom.Size, then Log.
	Prune *journalPrune `json:"prune,omitempty"`
	// The chain (chain.go). Prev is the hash of the block before ("" for
	// a genesis); Kind is "" for a transaction and "genesis" for the first
	// block of a new or migrated store; State is the digest of every live
	// record after the transaction; Hash is SHA-256 over Rev, Prev, Kind,
	// State, LogTo and Sets.
	Prev  string `json:"prev,omitempty"`
	Kind  string `json:"kind,omitempty"`
	State string `json:"state,omitempty"`
	Hash  string `json:"hash,omitempty"`
}

// journalPrune is a pending rewrite of the event log (Tx.PruneEvents).
type journalPrune struct {
	Prefix     int64  `json:"prefix,omitempty"`
	KeepFrom   int64  `json:"keep_from"`
	Checkpoint string `json:"checkpoint"`
}

// durable is j without what only matters until the event log holds it
// (the block the chain keeps in memory and salvage writes).
func (j journal) durable() journal {
	j.Log, j.Prune = "", nil
	return j
}

// commitJournaled makes a captured change set durable atomically. buntdb
// appends a commit's records one by one (in no fixed order), so a torn last
// write can leave part of a transaction applied on the next open. Each
// Update is therefore committed twice: first the whole change set as ONE
// record (meta:journal) — a single record is either complete or dropped on
// open — and then the records themselves. Open redoes the journal
// (redoJournal): a transaction torn in its second commit is completed; one
// torn in its first is dropped whole.
//
// Only the first commit is fsynced before Update returns (SyncPolicy
// Always): the journal alone holds the whole transaction, so once it is
// durable the transaction is (a crash that loses the second commit's
// records leaves the journal last, and open redoes it). The second commit
// is not fsynced (applyJournal): the file's next fsync makes it durable
// with everything before it — the next commit's journal, before that
// journal replaces this one, or the database's close. A transaction thus
// costs two fsyncs (the journal, the event log when it has events) and a
// store's close one more.
//
// The transaction's audit events go to the event log (eventlog.go) before
// the journal: the records are written and fsynced, then the journal —
// which carries them too (Log) with the log's head before and after
// (LogFrom, LogTo) — is committed, and only then are the store's records
// applied. A failed log write or journal commit cuts the records again
// and refuses the transaction; a crash between the two leaves records
// past the committed head, which open cuts (recoverLog). A journal whose
// log lost its records after the commit is completed on open from Log.
// A prune is the exception (it renames a rewritten log, so it follows its
// journal): its rewrite is completed on open from the journal.
func (s *Store) commitJournaled(tx *Tx) error {
	if s.logErr != nil {
		return StoreError(s.EventsPath(), fmt.Errorf("an earlier commit could not write the event log (reopen the store to complete it): %w", s.logErr))
	}
	j := journal{Rev: tx.rev, Sets: make([][2]string, 0, len(tx.changes))}
	for k, v := range tx.changes {
		j.Sets = append(j.Sets, [2]string{k, v})
		if old, ok := tx.old[k]; ok {
			if j.Before == nil {
				j.Before = map[string]string{}
			}
			j.Before[k] = beforeSum(old)
		}
	}
	sort.Slice(j.Sets, func(a, b int) bool { return j.Sets[a][0] < j.Sets[b][0] })
	from := s.head
	if tx.prune != nil && tx.prune.line != nil {
		// A repair rewrites the file as it is, which damage may have made
		// longer or shorter than the committed head says.
		from.Size = tx.prune.oldSize
	}
	base := s.head
	if tx.prune != nil {
		cp, h, err := tx.prune.rewrite(s.head)
		if err != nil {
			return err
		}
		j.Prune = &journalPrune{Prefix: tx.prune.prefix, KeepFrom: tx.prune.keepFrom, Checkpoint: string(cp)}
		base = h
	}
	lines, to, err := appendRecords(base, tx.rev, tx.events)
	if err != nil {
		return err
	}
	j.LogFrom, j.LogTo, j.Log = &from, &to, string(lines)
	// The block: linked to the head, with the state digest moved by
	// exactly the records the transaction changed.
	d := s.state
	for _, kv := range j.Sets {
		if !keyInState(kv[0]) {
			continue
		}
		if old, ok := tx.old[kv[0]]; ok {
			_, sum, err := unwrap(kv[0], old)
			if err != nil {
				return err
			}
			d.sub(sum)
		}
		_, sum, err := unwrap(kv[0], kv[1])
		if err != nil {
			return err
		}
		d.add(sum)
	}
	j.Prev, j.State = s.chain.Hash, d.String()
	j.seal()
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if j.Prune == nil {
		// The log's records first, flushed, then the journal: a write the
		// log refuses (a full or failing disk) has committed nothing, and
		// records the journal never followed are cut as uncommitted on the
		// next open (recoverLog), so a refused transaction is never applied
		// later.
		if err := s.writeLog(j); err != nil {
			s.cutLog(from)
			return StoreError(s.EventsPath(), err)
		}
		if s.crashBeforeJournal != nil {
			return s.crashBeforeJournal(j)
		}
	}
	if err := s.db.Update(func(btx *buntdb.Tx) error {
		_, _, err := btx.Set(keyJournal, string(b), nil)
		return err
	}); err != nil {
		if j.Prune == nil {
			s.cutLog(from)
		}
		return err
	}
	if s.crashAt != nil {
		return s.crashAt(j)
	}
	if j.Prune != nil {
		// A prune rewrites the log by a rename, which cannot come before
		// the journal (the committed head would not match it): the journal
		// is the commit, and an open completes the rewrite from it when
		// this fails. The transaction is durable, so it is acknowledged;
		// this process commits nothing more until the store is reopened.
		if err := s.writeLog(j); err != nil {
			s.logErr = err
		}
	}
	s.head = to
	if err := s.applyJournal(j); err != nil {
		// The journal holds the transaction, so the next open would
		// apply it: the caller takes the commit back (undoCommit).
		return &afterJournal{err}
	}
	s.chain, s.state = j.durable(), d
	for _, kv := range j.Sets {
		if kv[0] == keyGaps {
			// A set that does not load leaves none: every gap is then
			// damage (fail closed), never the reverse.
			_ = s.loadGaps(nil)
		}
	}
	return nil
}

// afterJournal is a commit that failed after its journal was durable:
// unless it is taken back, the next open completes it.
type afterJournal struct{ err error }

func (e *afterJournal) Error() string { return e.err.Error() }
func (e *afterJournal) Unwrap() error { return e.err }

// cutLog puts the event log back to head (the last committed one) after a
// transaction whose records were written but that did not commit. A cut
// that fails is left to the next open, which cuts records past the
// committed head the same way (recoverLog).
func (s *Store) cutLog(head LogHead) {
	root, rel := noFollowBase(s.dir)
	f, err := nofollow.OpenFile(root, filepath.Join(rel, EventsFile), os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if err := f.Truncate(head.Size); err == nil {
		_ = fsync.File(f)
	}
}

// applyJournal sets j's records. The journal stays as it is (its Log
// included) until the next commit replaces it: a record of its own in this
// commit could be the one a torn tail cuts, hiding a partly applied
// transaction from redoJournal. The records are written without an fsync
// (commitJournaled says why that loses nothing).
func (s *Store) applyJournal(j journal) error {
	var cfg buntdb.Config
	if err := s.db.ReadConfig(&cfg); err != nil {
		return err
	}
	sync := cfg.SyncPolicy
	cfg.SyncPolicy = buntdb.Never
	if err := s.db.SetConfig(cfg); err != nil {
		return err
	}
	err := s.db.Update(func(btx *buntdb.Tx) error {
		for _, kv := range j.Sets {
			if _, _, err := btx.Set(kv[0], kv[1], nil); err != nil {
				return err
			}
		}
		return nil
	})
	cfg.SyncPolicy = sync
	if serr := s.db.SetConfig(cfg); err == nil {
		err = serr
	}
	return err
}

// readJournal returns the last transaction's journal (nil when none).
func (s *Store) readJournal() (*journal, error) {
	var j *journal
	err := s.db.View(func(btx *buntdb.Tx) error {
		raw, err := btx.Get(keyJournal)
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		j = &journal{}
		if err := json.Unmarshal([]byte(raw), j); err != nil {
			return fmt.Errorf("decoding the journal: %w", err)
		}
		return nil
	})
	return j, err
}

// redoJournal completes the last transaction if a crash (or a torn tail)
// left only part of its records: it re-applies the journal j (nil: none)
// when any of its records differs from the store. It reports whether it
// had to, and the records it put back over a different value (a crash
// leaves a record missing or as the transaction before had it; anything
// else was written by someone else, which open audits).
func (s *Store) redoJournal(j *journal) (bool, []overwritten, error) {
	if j == nil {
		return false, nil, nil
	}
	stale := false
	var over []overwritten
	err := s.db.View(func(btx *buntdb.Tx) error {
		// Only the last transaction can be partial: a store whose revision
		// is past the journal's has committed later transactions.
		if cur, err := btx.Get(keyRev); err == nil {
			if rev, perr := strconv.ParseUint(payloadOf(keyRev, cur), 10, 64); perr == nil && rev > j.Rev {
				return nil
			}
		}
		for _, kv := range j.Sets {
			cur, err := btx.Get(kv[0])
			if err == nil && cur == kv[1] {
				continue
			}
			stale = true
			// A crash leaves a record missing or as it was before the
			// transaction; a journal of an older store cannot tell.
			if err == nil && j.Before != nil && j.Before[kv[0]] != beforeSum(cur) {
				over = append(over, overwritten{Key: kv[0], Found: cur, Restored: kv[1]})
			}
		}
		return nil
	})
	if err != nil || !stale {
		return false, nil, err
	}
	return true, over, s.applyJournal(*j)
}

// beforeSum is a short digest of a record's stored value (the first 16
// hex digits of its SHA-256), enough to recognise the value again.
func beforeSum(v string) string {
	h := sha256.Sum256([]byte(v))
	return hex.EncodeToString(h[:8])
}

// overwritten is a record a journal redo put back over another value.
type overwritten struct {
	Key, Found, Restored string
}

// maxShown bounds how much of a record's value an audit event quotes.
const maxShown = 256

// event is the audit event saying what the redo overwrote: the key, and
// both values bounded to maxShown bytes with control characters escaped
// (a human reads them).
func (o overwritten) event() records.Event {
	found, restored := shown(o.Found), shown(o.Restored)
	return records.Event{Kind: "store.record_restored", Actor: "loopx", Subject: o.Key,
		Message: fmt.Sprintf("the last transaction's journal put %s back: it held %s, not what that transaction wrote (%s) — an edit of state.db outside loopx?", o.Key, found, restored),
		Data:    map[string]any{"key": o.Key, "found": found, "restored": restored, "found_bytes": len(o.Found)}}
}

// shown is v with control, non-ASCII and backslash bytes escaped as Go
// escapes them (quotes left as they are: the values are JSON), cut to
// maxShown bytes of v, between backquotes.
func shown(v string) string {
	cut := ""
	if len(v) > maxShown {
		v, cut = v[:maxShown], fmt.Sprintf("… (%d bytes more)", len(v)-maxShown)
	}
	q := strconv.QuoteToASCII(v)
	return "`" + strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`) + "`" + cut
}

// readHead returns the stored head block (ok false when the store has
// none), checked against its own hash.
func (s *Store) readHead() (b journal, ok bool, err error) {
	err = s.db.View(func(btx *buntdb.Tx) error {
		raw, err := btx.Get(keyJournal)
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		b, err = decodeBlock(raw)
		return err
	})
	return b, ok, err
}
