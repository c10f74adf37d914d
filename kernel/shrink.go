package kernel

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/kernel/records"
)

// BackupFile is the copy of state.db kept in the state directory before
// every shrink (buntdb has no repair tool: a shrink that went wrong must be
// recoverable by hand).
const BackupFile = "state.db.bak"

// Shrink thresholds: Close shrinks the append-only file when it is larger
// than ShrinkMinBytes and more than ShrinkGrowth times its size right after
// the last shrink (the store stays small and is shrunk under the
// lock; a short CLI process never reaches buntdb's own automatic shrink).
const (
	ShrinkMinBytes = 1 << 20
	ShrinkGrowth   = 2
)

// keyShrinkBase holds the file size right after the last shrink. It is not
// a record of any goal and does not bump the revision.
const keyShrinkBase = "meta:shrink_base"

// ShrinkIfGrown shrinks the store when its file has grown past the
// thresholds (ShrinkMinBytes and ShrinkGrowth × the size after the last
// shrink): it first copies state.db to state.db.bak (written to a temporary
// file, fsynced, renamed), then rewrites the file to its live records and
// remembers the new size. The caller holds the lock (a Store always does).
// Errors leave the store usable: a failed backup skips the shrink.
func (s *Store) ShrinkIfGrown() (records.ShrinkReport, error) {
	var r records.ShrinkReport
	fi, err := os.Stat(s.Path())
	if err != nil {
		return r, err
	}
	r.Before, r.After = fi.Size(), fi.Size()
	r.Base, err = s.shrinkBase()
	if err != nil {
		return r, err
	}
	if r.Before <= ShrinkMinBytes || r.Before <= ShrinkGrowth*r.Base {
		return r, nil
	}
	if err := s.ShrinkWithBackup(); err != nil {
		return r, err
	}
	r.Shrunk = true
	if fi, err := os.Stat(s.Path()); err == nil {
		r.After = fi.Size()
	}
	return r, nil
}

// ShrinkWithBackup copies state.db to state.db.bak, then shrinks the file
// to its live records and records the new size as the shrink base.
func (s *Store) ShrinkWithBackup() error {
	if err := s.backup(); err != nil {
		return fmt.Errorf("backup before shrink: %w", err)
	}
	if err := s.shrinkFile(); err != nil {
		return err
	}
	fi, err := os.Stat(s.Path())
	if err != nil {
		return err
	}
	return s.db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set(keyShrinkBase, strconv.FormatInt(fi.Size(), 10), nil)
		return err
	})
}

func (s *Store) shrinkBase() (int64, error) {
	var base int64
	err := s.db.View(func(tx *buntdb.Tx) error {
		v, err := tx.Get(keyShrinkBase)
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		base, err = strconv.ParseInt(v, 10, 64)
		return err
	})
	return base, err
}

// shrinkFile rewrites state.db to its live records: written (buntdb's
// Save) to a temp file made without following a link, the database closed,
// the file renamed over state.db and opened again (openDB). buntdb's own
// Shrink is not used: it writes a fixed temp name through whatever link is
// placed there and renames that name over the store. Errors: those of
// writing or renaming (the database is opened again on the old file); of
// opening it again (the store is then closed: every later transaction
// fails, the process ends with the file whole).
func (s *Store) shrinkFile() error {
	closed := false
	err := replaceFile(s.dir, DBFile, func(w io.Writer) error { return s.db.Save(w) }, func() error {
		closed = true
		return s.db.Close()
	})
	if !closed {
		return err
	}
	db, _, oerr := openDB(s.dir, DBFile)
	if oerr == nil {
		oerr = configure(db)
	}
	if oerr != nil {
		return errors.Join(err, oerr)
	}
	s.db = db
	return err
}

// backup copies the store file to BackupFile atomically, following no
// link (copyFileAtomic).
func (s *Store) backup() error { return copyFileAtomic(s.Path(), s.dir, BackupFile) }

// copyFileAtomic copies src to dir/name through a temp file beside it
// (written, fsynced, renamed: replaceFile, following no link below dir's
// parent).
func copyFileAtomic(src, dir, name string) error {
	in, err := regularfile.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return replaceFile(dir, name, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	}, nil)
}
