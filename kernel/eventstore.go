package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/fsync"
	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/kernel/records"
)

// EventsPath is the event log's path (.loopx/events.log, EventsFile).
func (s *Store) EventsPath() string { return filepath.Join(s.dir, EventsFile) }

// EventsHead is the event log's head as the store's last commit left it.
func (s *Store) EventsHead() LogHead { return s.head }

// writeLog makes the event log what journal j says it is after its
// transaction: LogFrom's bytes (or, for a prune, the checkpoint and the
// kept records) followed by j.Log, fsynced. The caller knows the file ends
// at j.LogFrom (it holds the lock and committed it last, or recoverLog
// checked it).
func (s *Store) writeLog(j journal) error {
	if j.Prune != nil {
		return s.rewriteLog(j)
	}
	if j.Log == "" && j.LogFrom.Size == j.LogTo.Size {
		return nil
	}
	root, rel := noFollowBase(s.dir)
	f, err := nofollow.OpenFile(root, filepath.Join(rel, EventsFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	created := j.LogFrom.Size == 0
	if _, err := f.WriteAt([]byte(j.Log), j.LogFrom.Size); err != nil {
		f.Close()
		return err
	}
	if err := f.Truncate(j.LogTo.Size); err != nil {
		f.Close()
		return err
	}
	if err := fsync.File(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if created {
		return syncDir(s.dir)
	}
	return nil
}

// rewriteLog writes the pruned or repaired log of j to a temporary file
// (the old log's first Prefix bytes, the checkpoint or gap, the old log
// from KeepFrom to LogFrom.Size, then j.Log), fsyncs it and
// renames it over the log, following no link (replaceFile).
func (s *Store) rewriteLog(j journal) error {
	old, err := openBelow(s.dir, EventsFile, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer old.Close()
	return replaceFile(s.dir, EventsFile, func(w io.Writer) error {
		_, err := io.Copy(w, io.NewSectionReader(old, 0, j.Prune.Prefix))
		if err == nil {
			_, err = io.WriteString(w, j.Prune.Checkpoint)
		}
		if err == nil {
			_, err = io.Copy(w, io.NewSectionReader(old, j.Prune.KeepFrom, j.LogFrom.Size-j.Prune.KeepFrom))
		}
		if err == nil {
			_, err = io.WriteString(w, j.Log)
		}
		return err
	}, nil)
}

// ErrEventsDamaged is returned (wrapped in a StoreError) by Open when the
// event log does not end where the store's last commit left it, and the
// last transaction's journal cannot explain the difference: the log was
// truncated, replaced, deleted or changed. `loopx doctor --accept-store`
// keeps its verifiable records and goes on from there.
var ErrEventsDamaged = errors.New("the event log is not the one the store committed")

// recoverLog checks the event log against the head the last commit left
// (j.LogTo; the empty head when j is nil or predates the log), reading only
// its end: cost independent of the log's length. It repairs what a crash
// can leave: the last transaction's records missing or torn (completed
// from j, which still holds them), or bytes after the committed head (cut,
// kept in events.log.torn). Anything else is refused with ErrEventsDamaged,
// unless accept: then the longest verifiable prefix of the log is kept
// (the rest moved to events.log.torn) and made the head. It returns what
// it repaired (nil when nothing).
func (s *Store) recoverLog(j *journal, accept bool) (*logRepair, error) {
	want := LogHead{}
	if j != nil && j.LogTo != nil {
		want = *j.LogTo
	}
	path := s.EventsPath()
	root, rel := noFollowBase(s.dir)
	f, err := nofollow.OpenFile(root, filepath.Join(rel, EventsFile), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		if want.Size == 0 {
			s.head = want
			return nil, nil
		}
		f, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	if f != nil {
		defer f.Close()
	}
	var size int64
	if f != nil {
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		size = fi.Size()
	}
	if f != nil && size == want.Size && endsAt(f, want) {
		s.head = want
		return nil, nil
	}
	// Bytes after the committed head: a write nobody committed.
	if f != nil && size > want.Size && endsAt(f, want) {
		tail := make([]byte, size-want.Size)
		if _, err := f.ReadAt(tail, want.Size); err != nil {
			return nil, err
		}
		if err := s.keepTorn(tail); err != nil {
			return nil, err
		}
		if err := f.Truncate(want.Size); err != nil {
			return nil, err
		}
		if err := fsync.File(f); err != nil {
			return nil, err
		}
		s.head = want
		return &logRepair{Dropped: int64(len(tail))}, nil
	}
	// The last transaction's log write did not finish (or never started).
	if j != nil && j.LogFrom != nil && j.LogTo != nil && (j.Log != "" || j.Prune != nil) &&
		(j.LogFrom.Size == 0 || (f != nil && size >= j.LogFrom.Size && endsAt(f, *j.LogFrom))) {
		rep := &logRepair{Completed: true}
		if f != nil && size > j.LogFrom.Size && j.Prune == nil {
			tail := make([]byte, size-j.LogFrom.Size)
			if _, err := f.ReadAt(tail, j.LogFrom.Size); err != nil {
				return nil, err
			}
			if !bytes.HasPrefix([]byte(j.Log), tail) {
				if err := s.keepTorn(tail); err != nil {
					return nil, err
				}
				rep.Dropped = int64(len(tail))
			}
		}
		if f == nil && j.Prune != nil {
			return nil, StoreError(path, fmt.Errorf("%w: %s is missing while a prune was being written", ErrEventsDamaged, EventsFile))
		}
		if err := s.writeLog(*j); err != nil {
			return nil, err
		}
		s.head = want
		return rep, nil
	}
	// The log begins with the committed first record and ends with the
	// record the last commit wrote, at another length: records in the
	// middle were changed, added or cut. As damage that keeps the length,
	// it stays for the readers to find (`loopx events` names the first bad
	// record) and for `loopx doctor --salvage` to repair (a gap record
	// stands for the damaged span, checked against this head): the open
	// goes on from the committed head, and says so.
	if f != nil && want.Size > 0 && size != want.Size && endsWith(f, size, want) {
		head := want
		head.Size = size
		s.head = head
		return &logRepair{Damaged: fmt.Sprintf("%s is %d bytes, the store's last commit left it at %d: records before its last one were changed, added or cut", EventsFile, size, want.Size)}, nil
	}
	what := fmt.Sprintf("%s is %d bytes and does not end with the record the store's last commit wrote (byte %d, %d records)", EventsFile, size, want.Size, want.Records)
	if f == nil {
		what = fmt.Sprintf("%s is missing, but the store committed %d records (%d bytes) to it", EventsFile, want.Records, want.Size)
	}
	if !accept {
		e := StoreError(path, fmt.Errorf("%w: %s (truncated, replaced or changed?)", ErrEventsDamaged, what)).(*errs.Error)
		e.Hint = errs.Hint{Key: HintEventsDamaged}
		return nil, e
	}
	return s.salvageLog(f, size, what)
}

// salvageLog keeps the longest verifiable prefix of the log in f (nil: a
// missing log), moving the rest to events.log.torn.
func (s *Store) salvageLog(f *os.File, size int64, what string) (*logRepair, error) {
	rep := &logRepair{Salvaged: what}
	if f == nil {
		s.head = LogHead{}
		return rep, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	head, _ := scanLog(s.EventsPath(), s.gaps, f, size, nil)
	if size > head.Size {
		tail := make([]byte, size-head.Size)
		if _, err := f.ReadAt(tail, head.Size); err != nil {
			return nil, err
		}
		if err := s.keepTorn(tail); err != nil {
			return nil, err
		}
		rep.Dropped = int64(len(tail))
		if err := f.Truncate(head.Size); err != nil {
			return nil, err
		}
		if err := fsync.File(f); err != nil {
			return nil, err
		}
	}
	s.head = head
	return rep, nil
}

// keepTorn appends bytes cut from the log to events.log.torn.
func (s *Store) keepTorn(b []byte) error {
	root, rel := noFollowBase(s.dir)
	f, err := nofollow.OpenFile(root, filepath.Join(rel, eventsTornFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := fsync.File(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// logRepair is what recoverLog did.
type logRepair struct {
	// Completed: the last transaction's records were written from its journal.
	Completed bool
	// Dropped bytes were cut from the log (kept in events.log.torn).
	Dropped int64
	// Salvaged says what was wrong when a damaged log was accepted.
	Salvaged string
	// Damaged says how a log whose ends are the committed ones changed
	// length: damage in the middle, left for the readers and the repair.
	Damaged string
}

// errStopScan ends a scan early (fn returned false).
var errStopScan = errors.New("kernel: scan stopped")

// Events calls fn for every audit event in order (the committed ones in the
// event log, then this transaction's own) until fn returns false. Every
// record read is checked (checksum, chain); damage is a StoreError naming
// the first bad record.
func (tx *Tx) Events(fn func(records.Event) bool) error {
	stopped := false
	if err := tx.s.scanEvents(func(r logRecord, _ string, _ int64) error {
		ev := r.Event
		if r.Gap != nil {
			g := gapEvent(r.I, *r.Gap)
			ev = &g
		}
		if ev == nil {
			return nil
		}
		if !fn(*ev) {
			stopped = true
			return errStopScan
		}
		return nil
	}); err != nil {
		return err
	}
	if stopped {
		return nil
	}
	for _, ev := range tx.events {
		if !fn(ev) {
			return nil
		}
	}
	return nil
}

// scanEvents reads the log's committed records (up to the head) with fn.
func (s *Store) scanEvents(fn recordFunc) error {
	if s.head.Size == 0 {
		return nil
	}
	f, err := regularfile.Open(s.EventsPath())
	if err != nil {
		return StoreError(s.EventsPath(), err)
	}
	defer f.Close()
	got, err := scanLog(s.EventsPath(), s.gaps, f, s.head.Size, fn)
	if errors.Is(err, errStopScan) {
		return nil
	}
	if err == nil {
		err = checkEnds(s.EventsPath(), got, s.head)
	}
	if err != nil {
		return StoreError(s.EventsPath(), err)
	}
	return nil
}

// VerifyEvents reads the whole event log against the head the store
// committed: every record's checksum, the chain from the first record (or
// checkpoint) on, and where it ends. It returns the head read and the first
// damage as a *LogError (nil when the log is whole). `loopx doctor` runs it.
func (s *Store) VerifyEvents() (LogHead, error) {
	return VerifyLog(s.EventsPath(), s.gaps, s.head)
}

// pruneReq is a rewrite of the log pending in a transaction: a prune
// (PruneEvents), or a repair (RepairEvents: prefix, line and to set).
type pruneReq struct {
	// prefix is how many bytes of the old log stay before the new line
	// (0 for a prune); line, when set, is that line (a gap) and to the
	// head of the rewritten log, and oldSize the size of the file it
	// rewrites.
	prefix   int64
	line     []byte
	to       LogHead
	oldSize  int64
	keepFrom int64
	// inFile is how many records of the file are dropped (a checkpoint included).
	inFile uint64
	cp     Checkpoint
}

// rewrite returns the checkpoint line and the head of the pruned log
// (checkpoint plus the kept records of a log that ends at head).
func (p *pruneReq) rewrite(head LogHead) ([]byte, LogHead, error) {
	if p.line != nil {
		return p.line, p.to, nil
	}
	line, h, err := encodeRecord(logRecord{I: p.cp.Through, Checkpoint: &p.cp})
	if err != nil {
		return nil, head, err
	}
	out := LogHead{Size: int64(len(line)) + head.Size - p.keepFrom, Records: 1 + head.Records - p.inFile, Next: head.Next, First: h}
	if head.Records > p.inFile {
		out.Hash, out.Link = head.Hash, head.Link
	} else {
		out.Hash, out.Link = h, p.cp.Head
	}
	return line, out, nil
}

// PruneEvents drops the oldest audit events: the longest run from the
// start of the log whose events are all older than before and reviewed
// (reviewed(ev) true) — an event not yet reviewed is never pruned, nor
// anything after it. The dropped records are replaced by one checkpoint
// carrying the hash of the last one (Checkpoint.Head), so the chain stays
// verifiable from the checkpoint; the kept records are not rewritten. The
// log is rewritten when this transaction commits (journaled: a crash
// completes it on open). by is recorded on the checkpoint. One prune per
// transaction. Errors: a damaged log (StoreError), a second prune.
func (tx *Tx) PruneEvents(before time.Time, by string, reviewed func(records.Event) bool) (records.PruneReport, error) {
	var rep records.PruneReport
	if !tx.writable {
		return rep, errors.New("kernel: write in a read-only transaction")
	}
	if tx.prune != nil {
		return rep, errors.New("kernel: one prune per transaction")
	}
	req := &pruneReq{cp: Checkpoint{Before: before.UTC(), At: tx.now, By: by}}
	prefix := true
	err := tx.s.scanEvents(func(r logRecord, h string, off int64) error {
		if r.Checkpoint != nil {
			req.cp.Pruned, req.cp.ThroughSeq = r.Checkpoint.Pruned, r.Checkpoint.ThroughSeq
			req.cp.Head, req.cp.Through = r.Checkpoint.Head, r.Checkpoint.Through
			req.keepFrom, req.inFile = off, 1
			return nil
		}
		if r.Gap != nil {
			// A gap in the prunable prefix goes with it: the checkpoint
			// links on to the record after the gap.
			if prefix {
				req.cp.Head, req.cp.Through = r.Gap.Head, r.Gap.Through
				req.keepFrom = off
				req.inFile++
			}
			return nil
		}
		ev := *r.Event
		if prefix && ev.At.Before(before) && reviewed(ev) {
			req.cp.Head, req.cp.Through, req.cp.ThroughSeq = h, r.I, ev.Seq
			req.cp.Pruned++
			req.keepFrom = off
			req.inFile++
			rep.Pruned++
			return nil
		}
		prefix = false
		rep.Kept++
		if ev.At.Before(before) {
			rep.Unreviewed++
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	rep.ThroughSeq, rep.Head = req.cp.ThroughSeq, req.cp.Head
	if rep.Pruned > 0 {
		tx.prune = req
		tx.wrote = true
	}
	return rep, nil
}

// keyRetentionAt is when audit.retain was last applied (RFC 3339).
const keyRetentionAt = "meta:retention_at"

// RetentionAt returns when audit.retain was last applied (the zero time
// when never).
func (tx *Tx) RetentionAt() (time.Time, error) {
	var t time.Time
	_, err := tx.getJSON(keyRetentionAt, &t)
	return t, err
}

// SetRetentionAt records that audit.retain was applied at t.
func (tx *Tx) SetRetentionAt(t time.Time) error { return tx.putJSON(keyRetentionAt, t.UTC()) }

// Pruning reports whether this transaction prunes the event log already.
func (tx *Tx) Pruning() bool { return tx.prune != nil }
