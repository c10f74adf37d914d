package kernel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// The ledger index orders each goal's ledger entries by their instant, so
// that a quota window reads only its entries (LedgerSince) whatever the
// goal's history, and whatever the clock did (entries appended after it
// moved back are ordered by their instant, not their sequence). Every
// AppendLedger keeps it; a store written before it has no keyLedgerIndex,
// is read by scanning the goal's whole ledger meanwhile, and is indexed
// whole by its next ledger entry.
const keyLedgerIndex = "meta:ledger_index"

// keyLedgerAt orders goal's ledger entries by instant, then sequence; the
// value is the entry's sequence number.
func keyLedgerAt(g string, at time.Time, seq uint64) string {
	return fmt.Sprintf("lix:%s:%s:%020d", g, at.UTC().Format(fixedNano), seq)
}

// LedgerIndexed reports whether the store keeps the ledger index.
func (tx *Tx) LedgerIndexed() bool {
	_, err := tx.tx.Get(keyLedgerIndex)
	return err == nil
}

// indexLedger keeps the ledger index for e, appended in this transaction
// (a store without the index is indexed whole, e with the others).
func (tx *Tx) indexLedger(e records.LedgerEntry) error {
	if tx.LedgerIndexed() {
		return tx.putJSON(keyLedgerAt(e.Goal, e.At, e.Seq), e.Seq)
	}
	var all []records.LedgerEntry
	if err := scan(tx, "ledger:", func(e records.LedgerEntry) bool { all = append(all, e); return true }); err != nil {
		return err
	}
	for _, e := range all {
		if err := tx.putJSON(keyLedgerAt(e.Goal, e.At, e.Seq), e.Seq); err != nil {
			return err
		}
	}
	return tx.set(keyLedgerIndex, "1")
}

// LedgerSince returns goal's ledger entries whose instant is after start,
// in ledger order (sequence): what a quota window starting at start sums.
// It reads the ledger index (the goal's whole ledger when the store has
// none).
func (tx *Tx) LedgerSince(goal string, start time.Time) ([]records.LedgerEntry, error) {
	if !tx.LedgerIndexed() {
		all, err := tx.Ledger(goal)
		return slices.DeleteFunc(all, func(e records.LedgerEntry) bool { return !e.At.After(start) }), err
	}
	prefix := "lix:" + goal + ":"
	// Keys at start itself end ":<seq>", below ";": the pivot skips them.
	pivot := prefix + start.UTC().Format(fixedNano) + ";"
	var seqs []uint64
	var derr error
	err := tx.tx.AscendGreaterOrEqual("", pivot, func(k, v string) bool {
		if !strings.HasPrefix(k, prefix) {
			return false
		}
		var seq uint64
		if derr = json.Unmarshal([]byte(payloadOf(k, v)), &seq); derr != nil {
			derr = fmt.Errorf("decoding %s: %w", k, derr)
			return false
		}
		seqs = append(seqs, seq)
		return true
	})
	if err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	slices.Sort(seqs)
	out := make([]records.LedgerEntry, 0, len(seqs))
	for _, seq := range seqs {
		var e records.LedgerEntry
		if _, err := tx.getJSON(keyLedger(goal, seq), &e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
