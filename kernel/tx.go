package kernel

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Key layout. Records of one goal share the prefix <kind>:<goal>: so that a
// goal's records are read with one range scan and one goal's updates never
// touch another goal's keys.
const (
	keySchema   = "meta:schema"
	keyRev      = "meta:rev"
	keySeq      = "meta:seq"
	keyRecovery = "meta:recovery"
	// keyNewest is the newest instant any commit recorded (RFC 3339 with
	// nanoseconds): the store's own memory of time (Store.NewestInstant).
	keyNewest = "meta:newest_at"
	// keyStateRev is the global revision of the last commit that changed a
	// record decisions read (StateRevision): a commit that only counts
	// polls, or only appends audit events, leaves it where it was.
	keyStateRev = "meta:state_rev"
)

func keyGoal(g string) string               { return "goal:" + g }
func keyTodo(g, id string) string           { return "todo:" + g + ":" + id }
func keyGate(g, id string) string           { return "gate:" + g + ":" + id }
func keyRound(g, id string) string          { return "round:" + g + ":" + id }
func keyEvidence(g, id string) string       { return "ev:" + g + ":" + id }
func keyLedger(g string, seq uint64) string { return fmt.Sprintf("ledger:%s:%020d", g, seq) }
func keyHandoff(g string, seq uint64) string {
	return fmt.Sprintf("handoff:%s:%020d", g, seq)
}
func keyAgent(id string) string  { return "agent:" + id }
func keyEvent(seq uint64) string { return fmt.Sprintf("event:%020d", seq) }
func keyRef(id string) string    { return "ref:" + id }

// Tx is one kernel transaction: read-only inside Store.View, read-write
// inside Store.Update.
type Tx struct {
	s        *Store
	tx       *buntdb.Tx
	writable bool
	now      time.Time
	rev      uint64
	touched  map[string]bool
	seq      uint64
	seqDirty bool
	wrote    bool
	// changes records every key this transaction set, for the journal.
	changes map[string]string
	// old is the stored value each key in changes had before the
	// transaction (keys that were absent are not in it): the chain's
	// state digest moves by exactly these (chain.go).
	old map[string]string
	// events are the audit events this transaction appends (to the event
	// log, when it commits); prune a pending prune of the log.
	events []records.Event
	prune  *pruneReq
}

// Now is the transaction's instant (UTC); every record written in the
// transaction carries it.
func (tx *Tx) Now() time.Time { return tx.now }

// Revision is the global revision this transaction commits as (Update), or
// the current one (View).
func (tx *Tx) Revision() uint64 {
	if tx.writable {
		return tx.rev
	}
	r, _ := tx.counter(keyRev)
	return r
}

// StateRevision is the revision of the records decisions read: the global
// revision of the last commit that changed one (revision.state of a
// decision). A commit whose only writes are poll counts
// (CountGatePoll), audit events or the store's clock leaves it as it was,
// so that an agent polling under an open gate does not move it. In an
// Update it is the transaction's revision once fn changed such a record.
// A store written before the state revision was kept reads its global
// revision.
func (tx *Tx) StateRevision() uint64 {
	if tx.writable && tx.changesState() {
		return tx.rev
	}
	if v, err := tx.tx.Get(keyStateRev); err == nil {
		if r, perr := strconv.ParseUint(payloadOf(keyStateRev, v), 10, 64); perr == nil {
			return r
		}
	}
	r, _ := tx.counter(keyRev)
	return r
}

// changesState reports whether the writes of an Update so far change a
// record decisions read: any key but poll counts and the store's own
// bookkeeping (bookkeeping).
func (tx *Tx) changesState() bool {
	for k := range tx.changes {
		if !strings.HasPrefix(k, "poll:") && !bookkeeping[k] {
			return true
		}
	}
	return false
}

// bookkeeping are the store's records about itself that no decision
// reads: its revisions, its clock, its id sequence, how far the denial
// spool was imported, the event log's retention and gaps, the last
// recovery and shrink. A commit that writes only these (and audit events)
// leaves the state revision where it was.
var bookkeeping = map[string]bool{
	keyRev: true, keyStateRev: true, keyNewest: true, keySeq: true,
	keySpoolImported: true, keyRetentionAt: true, keyGaps: true,
	keyRecovery: true, keyShrinkBase: true,
}

func (tx *Tx) touch(goal string) {
	if tx.touched != nil && goal != "" {
		tx.touched[goal] = true
	}
}

// get returns key's payload (its stored value without the checksum).
func (tx *Tx) get(key string) (string, error) {
	v, err := tx.tx.Get(key)
	if err != nil {
		return "", err
	}
	return payloadOf(key, v), nil
}

func (tx *Tx) counter(key string) (uint64, error) {
	v, err := tx.get(key)
	if errors.Is(err, buntdb.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(v, 10, 64)
}

// nextSeq returns the next value of the store-wide sequence (events,
// ledger entries, handoffs).
func (tx *Tx) nextSeq() (uint64, error) {
	if !tx.seqDirty {
		v, err := tx.counter(keySeq)
		if err != nil {
			return 0, err
		}
		tx.seq = v
		tx.seqDirty = true
	}
	tx.seq++
	return tx.seq, nil
}

func (tx *Tx) getJSON(key string, v any) (bool, error) {
	s, err := tx.get(key)
	if errors.Is(err, buntdb.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return true, fmt.Errorf("decoding %s: %w", key, err)
	}
	return true, nil
}

func (tx *Tx) putJSON(key string, v any) error {
	if !tx.writable {
		return errors.New("kernel: write in a read-only transaction")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return tx.set(key, string(b))
}

// set writes key in the buntdb transaction and records it for the journal.
func (tx *Tx) set(key, val string) error {
	tx.wrote = true
	stored := wrap(key, val) // with its checksum (chain.go)
	if tx.changes != nil {
		if _, seen := tx.changes[key]; !seen {
			if prev, err := tx.tx.Get(key); err == nil {
				tx.old[key] = prev
			}
		}
		tx.changes[key] = stored
	}
	_, _, err := tx.tx.Set(key, stored, nil)
	return err
}

// scan decodes every value whose key starts with prefix, in key order.
func scan[T any](tx *Tx, prefix string, fn func(T) bool) error {
	var derr error
	err := tx.tx.AscendGreaterOrEqual("", prefix, func(k, v string) bool {
		if !strings.HasPrefix(k, prefix) {
			return false
		}
		var rec T
		if err := json.Unmarshal([]byte(payloadOf(k, v)), &rec); err != nil {
			derr = fmt.Errorf("decoding %s: %w", k, err)
			return false
		}
		return fn(rec)
	})
	if err != nil {
		return err
	}
	return derr
}

// newID returns prefix + random hex, unique among the store's ids: it
// grows from 4 hex digits while a collision is found (checked inside the
// transaction, which holds the store lock, so no other writer races it).
func (tx *Tx) newID(prefix string) (string, error) { return tx.newIDKeyed(prefix, keyRef) }

// newIDKeyed is newID for records that have no ref: key: key maps a
// candidate id to the key whose absence proves it unused.
func (tx *Tx) newIDKeyed(prefix string, key func(id string) string) (string, error) {
	for n := 2; n <= 8; n++ {
		for try := 0; try < 4; try++ {
			b := make([]byte, n)
			if _, err := rand.Read(b); err != nil {
				return "", err
			}
			id := prefix + hex.EncodeToString(b)
			if _, err := tx.tx.Get(key(id)); errors.Is(err, buntdb.ErrNotFound) {
				return id, nil
			}
		}
	}
	return "", errors.New("kernel: could not allocate a unique id")
}

func (tx *Tx) setRef(id, key string) error { return tx.set(keyRef(id), key) }

func (tx *Tx) refKey(id, kind string) (string, error) {
	k, err := tx.get(keyRef(id))
	if errors.Is(err, buntdb.ErrNotFound) || (err == nil && !strings.HasPrefix(k, kind+":")) {
		return "", fmt.Errorf("%s %q: %w", kindName(kind), id, ErrNotFound)
	}
	return k, err
}

func kindName(kind string) string {
	switch kind {
	case "ev":
		return "evidence"
	}
	return kind
}

// NotFound builds an ErrNotFound-wrapping error naming what is missing.
func NotFound(what, id string) error { return fmt.Errorf("%s %q: %w", what, id, ErrNotFound) }
