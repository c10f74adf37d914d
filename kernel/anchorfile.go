package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/atomicfile"
	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/kernel/records"
)

// maxAnchorBytes bounds the anchor record read whole (a larger file is
// refused as unreadable); maxRefusalsBytes bounds the part of the refusal
// log read (its newest bytes) and keepRefusalsBytes the file itself: past
// it, a refusal logged keeps the newest half of maxRefusalsBytes
// (trimRefusals).
const (
	maxAnchorBytes    = 16 << 20
	maxRefusalsBytes  = 1 << 20
	keepRefusalsBytes = 4 << 20
)

// maxRefusalLines bounds the lines of the refusal log: past it, a refusal
// logged keeps the newest half (trimRefusals). Ten times what one open
// imports (maxRefusalEvents).
const maxRefusalLines = 1000

// AnchorFile is the anchor record's name in the project's anchor directory
// (internal/anchor): the chain head this project last committed, the
// store's backend and location. It is written atomically (temp file +
// rename, mode 0600) after every commit, under the state lock.
const AnchorFile = "anchor.json"

// RefusalsFile is the refusal log in the anchor directory: one JSON line
// per refused open of the store (what was found, when). The store cannot
// take an audit event while it is refused; `loopx doctor --accept-store`
// and `--salvage` move these lines into the store as store.refused events
// (loopx review lists them), and every refusal message names the file.
const RefusalsFile = "refusals.jsonl"

// Backend is the store backend this package implements, as recorded in the
// anchor.
const Backend = "buntdb"

// Refusal is one line of the refusal log.
type Refusal struct {
	At time.Time `json:"at"`
	// Code is what was found: store_missing, store_behind, store_off_chain,
	// store_checksum, store_unanchored, store_moved, store_schema,
	// store_corrupt, link_refused (a link at .loopx/, state.lock or
	// state.db, never followed).
	Code    string `json:"code"`
	Message string `json:"message"`
}

// AnchorDirOf is the anchor directory of the store in dir: that of the
// project whose state directory dir is (its parent, when dir is named
// .loopx), else that of dir itself (a store outside a project: tests,
// benchmarks). Errors: those of anchor.Dir.
func AnchorDirOf(dir string) (string, error) {
	if filepath.Base(dir) == ".loopx" {
		return anchor.Dir(filepath.Dir(dir))
	}
	return anchor.Dir(dir)
}

// ReadAnchor returns the anchor record in anchorDir; ok is false when there
// is none. Errors: unreadable or malformed record.
func ReadAnchor(anchorDir string) (a records.Anchor, ok bool, err error) {
	b, err := regularfile.ReadFile(filepath.Join(anchorDir, AnchorFile), maxAnchorBytes)
	if errors.Is(err, os.ErrNotExist) {
		return a, false, nil
	}
	if err != nil {
		return a, false, err
	}
	if err := json.Unmarshal(b, &a); err != nil || a.Version != 1 {
		return a, true, fmt.Errorf("malformed anchor %s", filepath.Join(anchorDir, AnchorFile))
	}
	return a, true, nil
}

// writeAnchor replaces the anchor record (creating the directory 0700),
// following no link below the user's state directory (mkdirAnchor,
// atomicfile.WriteBelow). Errors: *nofollow.LinkError; writing.
func writeAnchor(anchorDir string, a records.Anchor) error {
	if err := mkdirAnchor(anchorDir); err != nil {
		return err
	}
	a.Version = 1
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	base, rel := anchor.Below(anchorDir)
	return atomicfile.WriteBelow(base, filepath.Join(rel, AnchorFile), append(b, '\n'))
}

// mkdirAnchor creates the anchor directory and its missing parents (0700)
// without following a link below the state directory it is in
// (anchor.Below: loopx/projects/<name>-<hash>); the state directory itself
// is the user's and made as os.MkdirAll does. Errors:
// *nofollow.LinkError; creating.
func mkdirAnchor(anchorDir string) error {
	base, rel := anchor.Below(anchorDir)
	if err := os.MkdirAll(base, 0o700); err != nil {
		return err
	}
	return nofollow.MkdirAll(base, rel, 0o700)
}

// removeRefusals removes the refusal log once its lines are in the store,
// following no link below the state directory.
func removeRefusals(anchorDir string) {
	base, rel := anchor.Below(anchorDir)
	_ = nofollow.RemoveAll(base, filepath.Join(rel, RefusalsFile))
}

// logRefusal appends r to the refusal log unless its last line says the
// same (a hook asking every second must not grow it without bound).
func logRefusal(anchorDir string, r Refusal) {
	if anchorDir == "" {
		return
	}
	if prev, _, err := ReadRefusals(anchorDir); err == nil && len(prev) > 0 {
		last := prev[len(prev)-1]
		if last.Code == r.Code && last.Message == r.Message {
			return
		}
	}
	if mkdirAnchor(anchorDir) != nil {
		return
	}
	b, _ := json.Marshal(r)
	// Never through a link placed in the anchor directory or above it.
	base, rel := anchor.Below(anchorDir)
	_ = nofollow.AppendFile(base, filepath.Join(rel, RefusalsFile), append(b, '\n'), 0o600)
	trimRefusals(anchorDir, r.At)
}

// LogWhileRefused keeps r in the refusal log of the store in dir (its
// anchor directory, AnchorDirOf) when writing r to the store as an event
// failed with err because the store is refused (ErrRolledBack,
// ErrTampered, ErrSchemaTooNew, ErrSchemaUnknown): an attempt made
// meanwhile (an agent trying doctor --accept-store) reaches review as a
// store.refused event once a human repairs the store. Other errors (a
// lock timeout) keep nothing. It reports whether r was kept.
func LogWhileRefused(dir string, err error, r Refusal) bool {
	for _, sentinel := range []error{ErrRolledBack, ErrTampered, ErrSchemaTooNew, ErrSchemaUnknown} {
		if errors.Is(err, sentinel) {
			adir, aerr := AnchorDirOf(dir)
			if aerr != nil {
				return false
			}
			logRefusal(adir, r)
			return true
		}
	}
	return false
}

// logLinkRefusal keeps a link found where the store in dir is opened
// (err wraps a *nofollow.LinkError) in its refusal log, code
// link_refused: the store is not open, so it cannot take the event.
func logLinkRefusal(dir string, o Options, err error) {
	var le *nofollow.LinkError
	if !errors.As(err, &le) {
		return
	}
	adir := o.AnchorDir
	if adir == "" {
		var aerr error
		if adir, aerr = AnchorDirOf(dir); aerr != nil {
			return
		}
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	logRefusal(adir, Refusal{At: now().UTC(), Code: "link_refused", Message: le.Error()})
}

// ReadRefusals returns the refusal log's lines (none when there is no log;
// lines that are no refusal loopx writes are skipped), the newest only when
// the file is longer than maxRefusalsBytes: the log lies outside the
// store, and whoever pads it must not hide the refusals written after the
// padding. skipped is the number of older bytes not read. Errors: the
// file cannot be read.
func ReadRefusals(anchorDir string) (rs []Refusal, skipped int64, err error) {
	l, err := readRefusalLog(anchorDir)
	return l.lines, l.skipped, err
}

// maxRefusalMessage bounds the message of a refusal line imported into
// the event log (loopx's own are far shorter), and maxRefusalCode its
// code: a longer message is cut, a longer code makes the line no refusal.
const (
	maxRefusalMessage = 2 << 10
	maxRefusalCode    = 64
)

// refusalLog is what readRefusalLog read: the refusal lines (messages cut
// to maxRefusalMessage), the older bytes not read, and what in the part
// read is no refusal loopx writes — lines that do not decode, or lack an
// instant or a code (malformed, their bytes), and messages cut (cut) —
// which only padding puts there.
type refusalLog struct {
	lines          []Refusal
	skipped        int64
	malformed      int
	malformedBytes int64
	cut            int
}

// readRefusalLog reads the refusal log of anchorDir (ReadRefusals).
func readRefusalLog(anchorDir string) (l refusalLog, err error) {
	f, err := regularfile.Open(filepath.Join(anchorDir, RefusalsFile))
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, err
	}
	defer f.Close()
	b, skipped, err := tail(f, maxRefusalsBytes)
	if err != nil {
		return l, err
	}
	l.skipped = skipped
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" {
			continue
		}
		var r Refusal
		if json.Unmarshal([]byte(line), &r) != nil || r.At.IsZero() || r.Code == "" || len(r.Code) > maxRefusalCode {
			l.malformed++
			l.malformedBytes += int64(len(line)) + 1
			continue
		}
		if len(r.Message) > maxRefusalMessage {
			r.Message = strings.ToValidUTF8(r.Message[:maxRefusalMessage], "") + "…"
			l.cut++
		}
		l.lines = append(l.lines, r)
	}
	return l, nil
}

// tail reads the last limit bytes of f from the first line that starts
// in them (all of f when shorter), and how many bytes before it it left.
func tail(f *os.File, limit int64) ([]byte, int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	from := max(fi.Size()-limit, 0)
	b := make([]byte, fi.Size()-from)
	n, err := f.ReadAt(b, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, err
	}
	b = b[:n]
	if from > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil, fi.Size(), nil
		}
		b, from = b[i+1:], from+int64(i)+1
	}
	return b, from, nil
}

// refusalsTrimmed is the code of the line trimRefusals writes first.
const refusalsTrimmed = "refusals_trimmed"

// trimRefusals keeps the newest half of maxRefusalsBytes of a refusal log
// grown past keepRefusalsBytes, and of those (or of a smaller file, read
// whole) the newest half of maxRefusalLines lines when there are more than
// maxRefusalLines, after a first line saying what was dropped (a refusal
// the import turns into an event), by rename. Failures keep the file as
// it is.
func trimRefusals(anchorDir string, now time.Time) {
	path := filepath.Join(anchorDir, RefusalsFile)
	f, err := regularfile.Open(path)
	if err != nil {
		return
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return
	}
	limit, what := int64(keepRefusalsBytes), fmt.Sprintf("the refusal log reached %d bytes", fi.Size())
	if fi.Size() > keepRefusalsBytes {
		limit = maxRefusalsBytes / 2 // the note and the rest are read whole
	}
	b, dropped, err := tail(f, limit)
	f.Close()
	if err != nil {
		return
	}
	if n := bytes.Count(b, []byte{'\n'}); n > maxRefusalLines {
		cut := 0
		for range n - maxRefusalLines/2 {
			cut += bytes.IndexByte(b[cut:], '\n') + 1
		}
		if dropped == 0 {
			what = fmt.Sprintf("the refusal log reached %d lines", n)
		}
		b, dropped = b[cut:], dropped+int64(cut)
	}
	if dropped == 0 {
		return
	}
	note, _ := json.Marshal(Refusal{At: now.UTC(), Code: refusalsTrimmed,
		Message: fmt.Sprintf("%s; its oldest %d bytes were dropped (whoever can write the anchor directory can pad it: loopx cannot tell who did)", what, dropped)})
	base, rel := anchor.Below(anchorDir)
	_ = nofollow.Replace(base, filepath.Join(rel, RefusalsFile), slices.Concat(note, []byte{'\n'}, b), 0o600)
}
