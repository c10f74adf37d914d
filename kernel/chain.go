package kernel

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/loopx-dev/loopx/internal/buntdb"
)

// The chain: state is tamper-evident. Every committed
// transaction is a block: its revision, the hash of the block before it,
// its complete change set, the event log's head after it, and the digest
// of every live record after it. The block is the transaction's journal
// (meta:journal, journal.go: fields Prev, Kind, State and Hash), so the
// append-only file holds every block since the last shrink in order, and
// the live meta:journal is the chain's head. The head's revision and hash
// are kept in the anchor outside the project (anchorfile.go).
//
// Every record carries a checksum: its stored value is
// "<16 hex digits>:<payload>", the digits being the first 8 bytes of
// SHA-256(key NUL payload). The state digest is the sum modulo 2^256 of
// those SHA-256 sums over every live record (a multiset hash, updated per
// change in O(changes)); the head names it, so a record changed, added or
// removed anywhere in the store no longer matches the head.

// keyChecked reports whether key's value is stored with a checksum: every
// key but the schema stamp (read before anything else, untouched when
// refused), the journal (the block hashes itself) and the shrink base (a
// file size that is no record of state).
func keyChecked(key string) bool {
	return key != keySchema && key != keyJournal && key != keyShrinkBase
}

// keyInState reports whether key counts in the state digest: every key but
// the journal and the shrink base.
func keyInState(key string) bool { return key != keyJournal && key != keyShrinkBase }

// recordSum is SHA-256(key NUL payload).
func recordSum(key, payload string) [32]byte {
	// Hashed from a reused buffer: opening the store sums every record,
	// and a hash.Hash and two byte copies of each was most of the check.
	bp := sumBufs.Get().(*[]byte)
	b := append(append(append((*bp)[:0], key...), 0), payload...)
	s := sha256.Sum256(b)
	*bp = b
	sumBufs.Put(bp)
	return s
}

// sumBufs are recordSum's buffers.
var sumBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// wrap returns the stored form of payload under key.
func wrap(key, payload string) string {
	if !keyChecked(key) {
		return payload
	}
	s := recordSum(key, payload)
	return hex.EncodeToString(s[:8]) + ":" + payload
}

// errChecksum is a record whose checksum does not match its content.
var errChecksum = errors.New("checksum mismatch")

// unwrap returns the payload of a stored value and its SHA-256 sum, or an
// error wrapping errChecksum naming key when the value has no checksum or
// a wrong one.
func unwrap(key, stored string) (string, [32]byte, error) {
	if !keyChecked(key) {
		return stored, recordSum(key, stored), nil
	}
	if len(stored) < 17 || stored[16] != ':' {
		return "", [32]byte{}, fmt.Errorf("record %s: %w (no checksum)", key, errChecksum)
	}
	payload := stored[17:]
	s := recordSum(key, payload)
	var want [8]byte
	if _, err := hex.Decode(want[:], []byte(stored[:16])); err != nil || [8]byte(s[:8]) != want {
		return "", [32]byte{}, fmt.Errorf("record %s: %w", key, errChecksum)
	}
	return payload, s, nil
}

// payloadOf strips a stored value's checksum without checking it (the
// store checked every record when it was opened, and buntdb keeps them in
// memory since).
func payloadOf(key, stored string) string {
	if !keyChecked(key) || len(stored) < 17 || stored[16] != ':' {
		return stored
	}
	return stored[17:]
}

// digest is the state digest: a sum modulo 2^256 of record sums.
type digest [4]uint64

func (d *digest) add(s [32]byte) {
	var carry uint64
	for i := 3; i >= 0; i-- {
		v := binary.BigEndian.Uint64(s[i*8:])
		sum := d[i] + v + carry
		if sum < d[i] || (carry == 1 && sum == d[i]) {
			carry = 1
		} else {
			carry = 0
		}
		d[i] = sum
	}
}

func (d *digest) sub(s [32]byte) {
	var borrow uint64
	for i := 3; i >= 0; i-- {
		v := binary.BigEndian.Uint64(s[i*8:])
		diff := d[i] - v - borrow
		if d[i] < v || (borrow == 1 && d[i] == v) {
			borrow = 1
		} else {
			borrow = 0
		}
		d[i] = diff
	}
}

func (d digest) String() string {
	var b [32]byte
	for i := range 4 {
		binary.BigEndian.PutUint64(b[i*8:], d[i])
	}
	return hex.EncodeToString(b[:])
}

func parseDigest(s string) (digest, error) {
	var d digest
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return d, errors.New("malformed state digest")
	}
	for i := range 4 {
		d[i] = binary.BigEndian.Uint64(b[i*8:])
	}
	return d, nil
}

// stateOf is the digest of the given stored records (key → stored value),
// or the first record whose checksum fails.
func stateOf(records map[string]string) (digest, error) {
	var d digest
	keys := make([]string, 0, len(records))
	for k := range records {
		keys = append(keys, k)
	}
	// A deterministic order, so that the first bad record named is stable.
	sort.Strings(keys)
	for _, k := range keys {
		if !keyInState(k) {
			continue
		}
		_, s, err := unwrap(k, records[k])
		if err != nil {
			return d, err
		}
		d.add(s)
	}
	return d, nil
}

// stateIn is the digest of every record in tx, read in key order (the
// order stateOf names the first bad record in) without copying them, with
// the stored value of the revision record (keyRev; hasRev false when there
// is none); or the first record whose checksum fails.
func stateIn(tx *buntdb.Tx) (d digest, rev string, hasRev bool, err error) {
	if aerr := tx.Ascend("", func(k, v string) bool {
		if k == keyRev {
			rev, hasRev = v, true
		}
		if !keyInState(k) {
			return true
		}
		var s [32]byte
		if _, s, err = unwrap(k, v); err != nil {
			return false
		}
		d.add(s)
		return true
	}); aerr != nil {
		return d, "", false, aerr
	}
	return d, rev, hasRev, err
}

// hashBlock computes b's hash from its durable fields: Rev, Prev, Kind,
// State, the event log's head after it (LogTo) and the change set — not
// Log, Prune or LogFrom, which the second write of a journal drops.
func hashBlock(b journal) string {
	h := sha256.New()
	fmt.Fprintf(h, "loopx-chain-1\n%d\n%s\n%s\n%s\n", b.Rev, b.Prev, b.Kind, b.State)
	if b.LogTo != nil {
		fmt.Fprintf(h, "log %d %s %s %d %d\n", b.LogTo.Size, b.LogTo.Hash, b.LogTo.Link, b.LogTo.Records, b.LogTo.Next)
	}
	for _, kv := range b.Sets {
		fmt.Fprintf(h, "%d:%s%d:%s", len(kv[0]), kv[0], len(kv[1]), kv[1])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// seal sets b.Hash.
func (b *journal) seal() { b.Hash = hashBlock(*b) }

// decodeBlock parses a stored block and checks its own hash. Errors name
// what is wrong (not JSON, a hash that does not match).
func decodeBlock(raw string) (journal, error) {
	var b journal
	if err := json.Unmarshal([]byte(raw), &b); err != nil {
		return b, fmt.Errorf("the chain block does not decode: %v", err)
	}
	if b.Hash == "" || hashBlock(b) != b.Hash {
		return b, fmt.Errorf("the chain block of revision %d does not match its hash", b.Rev)
	}
	if _, err := parseDigest(b.State); err != nil {
		return b, fmt.Errorf("the chain block of revision %d: %v", b.Rev, err)
	}
	return b, nil
}

// ShortHash is the first 12 hex digits of a chain hash, for messages.
func ShortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// parseSchema reads a schema stamp: the version, or an error for one that
// is not a positive number.
func parseSchema(v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("schema version %q is not a number", v)
	}
	if n <= 0 {
		return n, fmt.Errorf("schema version %d is not a version", n)
	}
	return n, nil
}

func jsonString(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
