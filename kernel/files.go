package kernel

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/internal/fsync"
	"github.com/loopx-dev/loopx/internal/nofollow"
)

// The store's files are reached from the directory its state directory is
// in (noFollowBase) without following a link below it: a link an agent
// places in .loopx/ never makes loopx open, write, rename or lock another
// file. Each helper here returns a *nofollow.LinkError for a link found.

// openBelow opens dir/name as os.OpenFile does, following no link below
// dir's parent (nofollow.OpenFile). Errors: *nofollow.LinkError; opening.
func openBelow(dir, name string, flag int, perm os.FileMode) (*os.File, error) {
	root, rel := noFollowBase(dir)
	return nofollow.OpenFile(root, filepath.Join(rel, name), flag, perm)
}

// mkdirBelow creates the state directory dir (0755) without following a
// link at it. Errors: *nofollow.LinkError; creating.
func mkdirBelow(dir string) error {
	root, rel := noFollowBase(dir)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	return nofollow.MkdirAll(root, rel, 0o755)
}

// replaceFile replaces dir/name with what fill writes: a temp file
// (".NAME.tmp-RANDOM", mode 0600, created with O_EXCL) beside it, fsynced,
// then renamed over it and the directory fsynced; no link below dir's
// parent is followed, and a link at name is replaced, never written
// through. before, when set, runs between the temp file's close and the
// rename (the shrink closes the database there). Errors:
// *nofollow.LinkError; fill's; creating, syncing, renaming (the temp file
// is removed then and name is unchanged).
func replaceFile(dir, name string, fill func(w io.Writer) error, before func() error) error {
	root, rel := noFollowBase(dir)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(rel, "."+name+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := nofollow.OpenFile(root, tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = fill(f)
	if err == nil {
		err = fsync.File(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && before != nil {
		err = before()
	}
	if err == nil {
		err = nofollow.Rename(root, tmp, filepath.Join(rel, name))
	}
	if err != nil {
		_ = nofollow.RemoveAll(root, tmp)
		return err
	}
	return syncDir(dir)
}

// openDB opens dir/name with buntdb on the file opened without following a
// link (created 0600 if missing): buntdb opens files only by name, so it
// is given the opened file's own name (nofollow.FDPath), never the path a
// link could be placed at meanwhile. size is the file's size after buntdb
// loaded it (it cuts a torn last record). Errors: *nofollow.LinkError;
// opening (no /proc: the store is not opened); buntdb's.
func openDB(dir, name string) (db *buntdb.DB, size int64, err error) {
	f, err := openBelow(dir, name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	p, err := nofollow.FDPath(f)
	if err != nil {
		return nil, 0, err
	}
	if db, err = buntdb.Open(p); err != nil {
		return nil, 0, err
	}
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	return db, size, nil
}

// stateLock is the exclusive flock on state.lock, taken on the file opened
// without following a link (a library that opens the lock by name would
// create a file at a link's target). A borrowed one (f nil) stands for a
// HeldLock its owner keeps: unlocking it does nothing.
type stateLock struct{ f *os.File }

// Unlock releases the lock and closes the file.
func (l *stateLock) Unlock() error {
	if l.f == nil {
		return nil
	}
	err := lockFile(l.f, syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// flock is lockFile(2) on f, retried when a signal interrupts it.
func lockFile(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// lockDir takes the exclusive state lock of dir (Open's), waiting up to
// o.LockTimeout (default 30 s); dir and state.lock are made (0755, 0600)
// without following a link. Errors: ErrLockTimeout; a StoreError when the
// lock file cannot be opened or locked (wrapping *nofollow.LinkError for
// a link at .loopx/ or state.lock).
func lockDir(dir string, o Options) (*stateLock, error) {
	if o.Held != nil {
		// The caller keeps the lock for the store's life (HeldLock): an
		// flock taken again on another descriptor would wait for it.
		if filepath.Clean(dir) != o.Held.dir || o.Held.l.f == nil {
			return nil, StoreError(filepath.Join(dir, LockFile), errors.New("the held state lock is another directory's, or released"))
		}
		return &stateLock{}, nil
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = 30 * time.Second
	}
	if err := mkdirBelow(dir); err != nil {
		return nil, StoreError(dir, err)
	}
	path := filepath.Join(dir, LockFile)
	f, err := openBelow(dir, LockFile, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, StoreError(path, err)
	}
	lk := &stateLock{f: f}
	err = lockFile(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return lk, nil
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, StoreError(path, err)
	}
	// Held: wait in a blocking flock, which the kernel wakes as soon as
	// the holder lets go (polling would leave the lock idle between
	// polls while writers queue). On the timeout the waiter is abandoned:
	// should it get the lock later, it lets go at once.
	got := make(chan error, 1)
	go func() { got <- lockFile(f, syscall.LOCK_EX) }()
	timer := time.NewTimer(o.LockTimeout)
	defer timer.Stop()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return nil, StoreError(path, err)
		}
		return lk, nil
	case <-timer.C:
		go func() {
			if <-got == nil {
				_ = lk.Unlock()
			} else {
				f.Close()
			}
		}()
		return nil, fmt.Errorf("%w %s (%s)", ErrLockTimeout, path, o.LockTimeout)
	}
}

// HeldLock is the state lock of a project's .loopx/ kept by one long-lived
// process (`loopx serve`) for its life: stores it opens with Options.Held
// take no lock of their own and release none, so no other process opens
// the store meanwhile, and the holder makes sure one store at a time is
// used (a mutex: the lock serialises processes, not goroutines).
type HeldLock struct {
	dir string
	l   *stateLock
}

// HoldLock takes dir's state lock (as Open does: waiting up to
// o.LockTimeout, never following a link) and keeps it until Release.
// Errors: lockDir's (ErrLockTimeout; a StoreError).
func HoldLock(dir string, o Options) (*HeldLock, error) {
	o.Held = nil
	l, err := lockDir(dir, o)
	if err != nil {
		return nil, err
	}
	return &HeldLock{dir: filepath.Clean(dir), l: l}, nil
}

// Release lets the lock go; stores opened with it must be closed first.
func (h *HeldLock) Release() error {
	if h.l.f == nil {
		return nil
	}
	err := h.l.Unlock()
	h.l.f = nil
	return err
}
