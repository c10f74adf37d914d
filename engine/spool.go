package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/loopx-dev/loopx/kernel"
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

// spoolRecord is one spooled denial.
type spoolRecord struct {
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

// event is r's permission.denied event.
func (r spoolRecord) event() kernel.Event {
	data := map[string]any{"tool": r.Tool, "action": r.Action, "codes": r.Codes, "verdict": r.Verdict, "denied_at": r.At.UTC().Format(time.RFC3339Nano)}
	return kernel.Event{Kind: "permission.denied", Goal: r.Goal, Actor: r.Agent, Subject: r.DecisionID, Message: r.Message, Data: data}
}

func (e *Engine) spoolDir() string { return filepath.Join(e.StateDir(), SpoolDir) }

// spoolDenial appends r as one line to the spool.
func (e *Engine) spoolDenial(r spoolRecord) error {
	dir := e.spoolDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	lk := flock.New(filepath.Join(dir, SpoolLock))
	ctx, cancel := context.WithTimeout(context.Background(), spoolLockWait)
	defer cancel()
	if ok, err := lk.TryRLockContext(ctx, time.Millisecond); err == nil && ok {
		defer lk.Unlock()
	}
	f, err := os.OpenFile(filepath.Join(dir, SpoolFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(line)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// spoolPending reports whether the spool holds lines or segments to import.
func (e *Engine) spoolPending() bool {
	if fi, err := os.Stat(filepath.Join(e.spoolDir(), SpoolFile)); err == nil && fi.Size() > 0 {
		return true
	}
	segs, _ := filepath.Glob(filepath.Join(e.spoolDir(), "denials-*.importing"))
	return len(segs) > 0
}

// importPending imports denials spooled since the last writer, if any, so
// that readers of the audit log (Events, Review) list them like every
// other event.
func (e *Engine) importPending() error {
	if !e.spoolPending() {
		return nil
	}
	return e.settle()
}

// importSpool imports the spool into tx (see SpoolDir) and returns the
// segment files to delete once tx has committed. Errors reading the spool
// are returned (the caller's transaction then fails and nothing is lost).
func (e *Engine) importSpool(tx *kernel.Tx) ([]string, error) {
	dir := e.spoolDir()
	if _, err := os.Stat(dir); err != nil {
		return nil, nil
	}
	segs, err := spoolSegments(dir)
	if err != nil {
		return nil, err
	}
	done, err := tx.SpoolImported()
	if err != nil {
		return nil, err
	}
	if seg, err := rotateSpool(dir, segs, done); err != nil {
		return nil, err
	} else if seg != "" {
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		return nil, nil
	}
	mark := map[string]string{}
	fresh := false
	var files []string
	for _, name := range segs {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading the denial spool: %w", err)
		}
		sum := sha256.Sum256(data)
		h := hex.EncodeToString(sum[:])
		mark[name] = h
		files = append(files, path)
		if done[name] == h {
			continue // committed before a crash: delete, never import twice
		}
		fresh = true
		if err := importSegment(tx, name, data); err != nil {
			return nil, err
		}
	}
	if fresh {
		if err := tx.SetSpoolImported(mark); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// importSegment appends one permission.denied event per line of data.
func importSegment(tx *kernel.Tx, name string, data []byte) error {
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, raw := range lines {
		if len(raw) == 0 {
			continue
		}
		line := bytes.TrimRight(raw, "\n")
		torn := !bytes.HasSuffix(raw, []byte("\n"))
		var r spoolRecord
		if len(bytes.TrimSpace(line)) == 0 && !torn {
			continue
		}
		if torn || json.Unmarshal(line, &r) != nil || r.Goal == "" {
			what := "an unreadable line"
			if torn {
				what = "a torn line (the hook stopped while writing it)"
			}
			text := string(line)
			if len(text) > 2048 {
				text = text[:2048] + "…"
			}
			if err := tx.AppendEvent(kernel.Event{Kind: "permission.denied", Actor: "loopx", Subject: name + ":" + strconv.Itoa(i+1),
				Message: "denial spool: " + what + " kept as written",
				Data:    map[string]any{"raw": text, "spool": name, "line": i + 1}}); err != nil {
				return err
			}
			continue
		}
		if err := tx.AppendEvent(r.event()); err != nil {
			return err
		}
	}
	return nil
}

// spoolSegments lists the segments waiting in dir, oldest first.
func spoolSegments(dir string) ([]string, error) {
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

// rotateSpool renames a non-empty SpoolFile to the next segment under the
// spool's exclusive lock and returns the segment's name ("" when there was
// nothing to rotate, or the lock was busy: the lines wait for the next
// writer).
//
// Segment numbers never repeat: the next is one past the highest among the
// waiting segments and those the store records as imported.
func rotateSpool(dir string, segs []string, imported map[string]string) (string, error) {
	live := filepath.Join(dir, SpoolFile)
	if fi, err := os.Stat(live); err != nil || fi.Size() == 0 {
		return "", nil
	}
	lk := flock.New(filepath.Join(dir, SpoolLock))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	ok, err := lk.TryLockContext(ctx, time.Millisecond)
	if err != nil || !ok {
		return "", nil
	}
	defer lk.Unlock()
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
	if err := os.Rename(live, filepath.Join(dir, name)); err != nil {
		return "", err
	}
	return name, nil
}

// removeSpool deletes imported segments (after their commit).
func removeSpool(files []string) {
	for _, f := range files {
		_ = os.Remove(f)
	}
}
