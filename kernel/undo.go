package kernel

import (
	"errors"
	"fmt"
	"os"

	"github.com/loopx-dev/loopx/internal/fsync"
)

// commitMark is what a commit can be undone to: the store file's size
// before it, and the chain head, state digest and event log head the
// store had then.
type commitMark struct {
	size  int64
	chain journal
	state digest
	head  LogHead
}

// mark records the store as it is before a commit (undoCommit).
func (s *Store) mark() (commitMark, error) {
	f, err := openBelow(s.dir, DBFile, os.O_RDONLY, 0)
	if err != nil {
		return commitMark{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return commitMark{}, err
	}
	return commitMark{size: fi.Size(), chain: s.chain, state: s.state, head: s.head}, nil
}

// undoCommit takes back a commit that failed after its journal was
// durable — its records could not be applied (a full disk), or its anchor
// could not be written — so that a write is either acknowledged and
// anchored or refused and never applied later: the next open would
// complete a journal left in place, and an acknowledged write the anchor
// does not know could be rolled back unseen (state.db put back to the
// anchored revision). The database is closed, the store file and the
// event log cut back to m and flushed, and the database opened again.
// path, what and cause say which file, which step failed and why. It
// returns the error
// Update reports: cause, saying the transaction was undone; or, when the
// undo itself fails, both (the store is then closed: every later
// transaction fails).
func (s *Store) undoCommit(m commitMark, path, what string, cause error) error {
	// Close's own error (its final flush) is superseded by the cut's: the
	// file is closed either way, and the cut is flushed.
	_ = s.db.Close()
	err := s.cutStore(m.size)
	s.cutLog(m.head)
	db, _, oerr := openDB(s.dir, DBFile)
	if oerr == nil {
		oerr = configure(db)
	}
	if err = errors.Join(err, oerr); err != nil {
		return StoreError(path, fmt.Errorf("%s: %w; undoing the transaction: %v", what, cause, err))
	}
	s.db = db
	s.chain, s.state, s.head = m.chain, m.state, m.head
	return StoreError(path, fmt.Errorf("%s: %w (the transaction was undone: nothing was written)", what, cause))
}

// cutStore truncates the store file to size and flushes it.
func (s *Store) cutStore(size int64) error {
	f, err := openBelow(s.dir, DBFile, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return err
	}
	return fsync.File(f)
}
