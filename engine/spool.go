package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/kernel"
)

// The denial spool's names in the state directory (hosts.SpoolDir, …):
// hooks append denials there without the state lock; the engine imports
// them in its next write transaction (importSpool).
const (
	SpoolDir  = hosts.SpoolDir
	SpoolFile = hosts.SpoolFile
	SpoolLock = hosts.SpoolLock
)

// spoolRecord is one spooled denial (hosts.Denial).
type spoolRecord = hosts.Denial

// denialEvent is r's permission.denied event.
func denialEvent(r spoolRecord) kernel.Event {
	data := map[string]any{"tool": r.Tool, "action": r.Action, "codes": r.Codes, "verdict": r.Verdict, "denied_at": r.At.UTC().Format(time.RFC3339Nano)}
	return kernel.Event{Kind: "permission.denied", Goal: r.Goal, Actor: r.Agent, Subject: r.DecisionID, Message: r.Message, Data: data}
}

// spoolDir is the state directory's denial spool.
func (e *Engine) spoolDir() string { return filepath.Join(e.StateDir(), SpoolDir) }

// spoolDenial appends r to the spool (hosts.AppendDenial).
func (e *Engine) spoolDenial(r spoolRecord) error { return hosts.AppendDenial(e.spoolDir(), r) }

// spoolPending reports whether the spool holds lines or segments to import.
func (e *Engine) spoolPending() bool { return hosts.SpoolPending(e.spoolDir()) }

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
	segs, err := hosts.SpoolSegments(dir)
	if err != nil {
		return nil, err
	}
	done, err := tx.SpoolImported()
	if err != nil {
		return nil, err
	}
	if seg, err := hosts.RotateSpool(dir, segs, done); err != nil {
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
		if err := tx.AppendEvent(denialEvent(r)); err != nil {
			return err
		}
	}
	return nil
}
