package hosts

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/internal/nofollow"
	"golang.org/x/sys/unix"
)

// The denial spool (.loopx/spool/): a hook audits a denied tool call
// without waiting for the state lock by appending one JSON line to
// SpoolFile; the next writer that holds the state lock imports it into
// permission.denied events in its own transaction.
//
// Crash safety. Appenders hold a shared flock on SpoolLock while they open,
// write (one write call per line, O_APPEND) and close. The importer, under
// the state lock, takes the exclusive flock only to rename SpoolFile to a
// numbered segment (denials-<n>.importing), so no line is ever written
// into a segment after the rename. It then imports every segment in its
// transaction together with a record of the segments' names and content
// hashes (kernel meta:spool_imported), and deletes the segments only after
// the commit. A crash before the commit leaves the segments to import
// again; a crash after it leaves segments whose name and hash the store
// already holds, which are deleted without importing them twice. A last
// line without its newline (a hook killed mid-write) can never be
// completed once its file is a segment: it is imported as a torn line,
// with its raw text, as is any complete line that does not decode.
const (
	SpoolDir  = "spool"
	SpoolFile = "denials.jsonl"
	SpoolLock = "denials.lock"
)

// spoolLockWait bounds an appender's wait for the spool's shared lock (the
// importer holds it for one rename); past it the line is appended anyway.
const spoolLockWait = 2 * time.Second

// Denial is one spooled denial: a hook's permission decision that did
// not allow the call (its permission.denied audit event, once imported).
type Denial struct {
	// Kind is "" for a denial the policy gave, HookStopped for a hook
	// stopped past its deadline (written by its timer's handler).
	Kind       string    `json:"kind,omitempty"`
	Goal       string    `json:"goal"`
	Agent      string    `json:"agent"`
	DecisionID string    `json:"decision_id"`
	Verdict    string    `json:"verdict"`
	Message    string    `json:"message"`
	Tool       string    `json:"tool,omitempty"`
	Action     string    `json:"action,omitempty"`
	Codes      []string  `json:"codes"`
	At         time.Time `json:"at"`
}

// AppendDenial appends r as one line to the spool in dir (the state
// directory's SpoolDir), under the spool's shared lock (waiting at most
// spoolLockWait, then appending anyway).
//
// dir is <root>/<state dir>/SpoolDir: the directory and the file are
// reached from root without following a link (internal/nofollow); a link
// found is a *nofollow.LinkError.
func AppendDenial(dir string, r Denial) error {
	root, rel := filepath.Dir(filepath.Dir(dir)), filepath.Join(filepath.Base(filepath.Dir(dir)), filepath.Base(dir))
	if err := nofollow.MkdirAll(root, rel, 0o755); err != nil {
		return err
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	unlock, ok, err := lockSpool(root, rel, unix.LOCK_SH, spoolLockWait)
	if errors.Is(err, nofollow.ErrLink) {
		return err // never a lock taken (or a file made) through a link
	}
	if ok {
		defer unlock()
	}
	return nofollow.AppendFile(root, filepath.Join(rel, SpoolFile), line, 0o644)
}

// HookStopped is the Denial.Kind of the line a PreToolUse hook leaves when
// it runs past its deadline and its timer stops it (the call is blocked).
const HookStopped = "hooks.stopped"

// OpenSpool opens the live spool file in dir (the state directory's
// SpoolDir, made if missing) for appending, without following a link (as
// AppendDenial), for a line that must be written later without the Go
// runtime: a hook's timer handler writes it in one write call, without
// the spool's lock. Errors: *nofollow.LinkError; opening.
func OpenSpool(dir string) (*os.File, error) {
	root, rel := filepath.Dir(filepath.Dir(dir)), filepath.Join(filepath.Base(filepath.Dir(dir)), filepath.Base(dir))
	if err := nofollow.MkdirAll(root, rel, 0o755); err != nil {
		return nil, err
	}
	return nofollow.OpenFile(root, filepath.Join(rel, SpoolFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
}

// SpoolPending reports whether the spool in dir holds lines or segments
// to import.
func SpoolPending(dir string) bool {
	if fi, err := os.Stat(filepath.Join(dir, SpoolFile)); err == nil && fi.Size() > 0 {
		return true
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "denials-*.importing"))
	return len(segs) > 0
}

// SpoolSegments lists the segments waiting in dir, oldest first.
func SpoolSegments(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var segs []string
	for _, en := range entries {
		if n := en.Name(); strings.HasPrefix(n, "denials-") && strings.HasSuffix(n, ".importing") {
			segs = append(segs, n)
		}
	}
	sort.Strings(segs) // zero-padded numbers sort in order
	return segs, nil
}

// RotateSpool renames a non-empty SpoolFile to the next segment under the
// spool's exclusive lock and returns the segment's name ("" when there was
// nothing to rotate, or the lock was busy: the lines wait for the next
// writer).
//
// Segment numbers never repeat: the next is one past the highest among the
// waiting segments and those the store records as imported.
func RotateSpool(dir string, segs []string, imported map[string]string) (string, error) {
	live := filepath.Join(dir, SpoolFile)
	if fi, err := os.Stat(live); err != nil || fi.Size() == 0 {
		return "", nil
	}
	root, rel := filepath.Dir(filepath.Dir(dir)), filepath.Join(filepath.Base(filepath.Dir(dir)), filepath.Base(dir))
	unlock, ok, err := lockSpool(root, rel, unix.LOCK_EX, 200*time.Millisecond)
	if errors.Is(err, nofollow.ErrLink) {
		return "", err
	}
	if !ok {
		return "", nil
	}
	defer unlock()
	next := uint64(1)
	names := append([]string{}, segs...)
	for n := range imported {
		names = append(names, n)
	}
	for _, n := range names {
		if v, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(n, "denials-"), ".importing"), 10, 64); err == nil && v >= next {
			next = v + 1
		}
	}
	name := fmt.Sprintf("denials-%020d.importing", next)
	if err := nofollow.Rename(root, filepath.Join(rel, SpoolFile), filepath.Join(rel, name)); err != nil {
		return "", err
	}
	return name, nil
}

// lockSpool takes the spool's lock, root/rel/SpoolLock opened (created
// when missing) without following a link, shared (unix.LOCK_SH) or
// exclusive (unix.LOCK_EX), trying for at most wait; ok is false when it
// stayed busy or could not be opened. unlock releases and closes it.
// Errors: *nofollow.LinkError (a link at the lock file or its directory:
// flock would have followed it and could have made an empty file there).
func lockSpool(root, rel string, how int, wait time.Duration) (unlock func(), ok bool, err error) {
	f, err := nofollow.OpenFile(root, filepath.Join(rel, SpoolLock), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		if errors.Is(err, nofollow.ErrLink) {
			return nil, false, err
		}
		return nil, false, nil
	}
	fd := int(f.Fd())
	deadline := time.Now().Add(wait)
	for {
		err := unix.Flock(fd, how|unix.LOCK_NB)
		if err == nil {
			return func() { _ = unix.Flock(fd, unix.LOCK_UN); f.Close() }, true, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) || time.Now().After(deadline) {
			f.Close()
			return nil, false, nil
		}
		time.Sleep(time.Millisecond)
	}
}

// RemoveSpool deletes imported segments (after their commit).
func RemoveSpool(files []string) {
	for _, f := range files {
		base, rel := nofollow.Split(f, 3) // <project>/.loopx/spool/<segment>, no link followed
		_ = nofollow.RemoveAll(base, rel)
	}
}
