package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/tidwall/buntdb"
)

// keyJournal holds the change set of the last Update (a redo record).
const keyJournal = "meta:journal"

// errCaptured ends Update's capture phase (a rollback by design).
var errCaptured = errors.New("kernel: changes captured")

// journal is a transaction's complete change set.
type journal struct {
	Rev uint64 `json:"rev"`
	// Sets are [key, value] pairs in key order.
	Sets [][2]string `json:"sets"`
}

// commitJournaled makes a captured change set durable atomically. buntdb
// appends a commit's records one by one (in no fixed order), so a torn last
// write can leave part of a transaction applied on the next open. Each
// Update is therefore committed twice: first the whole change set as ONE
// record (meta:journal) — a single record is either complete or dropped on
// open — and then the records themselves. Open redoes the journal
// (redoJournal): a transaction torn in its second commit is completed; one
// torn in its first is dropped whole. Both commits fsync (SyncPolicy Always).
func (s *Store) commitJournaled(rev uint64, changes map[string]string) error {
	j := journal{Rev: rev, Sets: make([][2]string, 0, len(changes))}
	for k, v := range changes {
		j.Sets = append(j.Sets, [2]string{k, v})
	}
	sort.Slice(j.Sets, func(a, b int) bool { return j.Sets[a][0] < j.Sets[b][0] })
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if err := s.db.Update(func(btx *buntdb.Tx) error {
		_, _, err := btx.Set(keyJournal, string(b), nil)
		return err
	}); err != nil {
		return err
	}
	return s.applyJournal(j)
}

func (s *Store) applyJournal(j journal) error {
	return s.db.Update(func(btx *buntdb.Tx) error {
		for _, kv := range j.Sets {
			if _, _, err := btx.Set(kv[0], kv[1], nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// redoJournal completes the last transaction if a crash (or a torn tail)
// left only part of its records: it re-applies the journal when any of its
// records differs from the store. It reports whether it had to.
func (s *Store) redoJournal() (bool, error) {
	var j journal
	stale := false
	err := s.db.View(func(btx *buntdb.Tx) error {
		raw, err := btx.Get(keyJournal)
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(raw), &j); err != nil {
			return fmt.Errorf("decoding the journal: %w", err)
		}
		// Only the last transaction can be partial: a store whose revision
		// is past the journal's has committed later transactions.
		if cur, err := btx.Get(keyRev); err == nil {
			if rev, perr := strconv.ParseUint(cur, 10, 64); perr == nil && rev > j.Rev {
				return nil
			}
		}
		for _, kv := range j.Sets {
			if cur, err := btx.Get(kv[0]); err != nil || cur != kv[1] {
				stale = true
				return nil
			}
		}
		return nil
	})
	if err != nil || !stale {
		return false, err
	}
	return true, s.applyJournal(j)
}
