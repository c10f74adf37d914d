package declog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// logMaxLine bounds one decision-log line the reader keeps; longer lines
// (never written by loopx) are skipped without being held in memory.
const logMaxLine = 4 << 20

// LogFilter selects decision-log entries for ReadLog. Zero fields match all.
type LogFilter struct {
	// Goal and Agent match the decision's goal and agent.
	Goal, Agent string
	// Verdict matches the result's verdict ("run", "skip", …).
	Verdict string
	// Query matches the query ("should_run", …).
	Query string
	// Since keeps entries with a timestamp at or after it (zero = all).
	Since time.Time
	// Limit keeps only the newest Limit entries (0 = all).
	Limit int
}

func (f LogFilter) match(le *LogEntry) bool {
	return (f.Goal == "" || le.Input.Goal == f.Goal) &&
		(f.Agent == "" || le.Input.Agent == f.Agent) &&
		(f.Query == "" || le.Input.Query == f.Query) &&
		(f.Since.IsZero() || !le.Timestamp.Before(f.Since)) &&
		(f.Verdict == "" || le.Decision().Verdict == f.Verdict)
}

// legacyLogEntry is a decision-log line of loopx before the OPA event
// format: the input without the snapshot, its hash, the whole decision as
// result, and revision as an object.
type legacyLogEntry struct {
	DecisionID string    `json:"decision_id"`
	Path       string    `json:"path"`
	Input      Input     `json:"input"`
	InputHash  string    `json:"input_hash"`
	Result     Decision  `json:"result"`
	Timestamp  time.Time `json:"timestamp"`
	Revision   Revision  `json:"revision"`
}

// ParseLogLine decodes one decision-log line: an OPA decision-log event as
// loopx writes it (LogEntry), or a line of loopx's earlier format (revision
// an object, input_hash), converted with Legacy set and no stored input.
// ok is false for anything else (a torn write, a foreign line).
func ParseLogLine(line []byte) (le LogEntry, ok bool) {
	if err := json.Unmarshal(line, &le); err == nil && le.DecisionID != "" && len(le.Result) > 0 {
		return le, true
	}
	var old legacyLogEntry
	if json.Unmarshal(line, &old) != nil || old.DecisionID == "" || old.InputHash == "" {
		return LogEntry{}, false
	}
	q := old.Input.Query
	if q == "" {
		q = old.Result.Query
	}
	res, err := json.Marshal(outcomeOf(old.Result))
	if err != nil {
		return LogEntry{}, false
	}
	le = LogEntry{DecisionID: old.DecisionID, Path: old.Path, Revision: old.Revision.Policy,
		Bundles: map[string]BundleRevision{PolicyBundle: {Revision: old.Revision.Policy}, SpecBundle: {Revision: old.Revision.Spec}},
		Input:   LogInput{Query: q, Now: old.Input.Now, Goal: old.Input.Goal, Agent: old.Input.Agent, Health: old.Input.Health, Permission: old.Input.Permission},
		Result:  res, Timestamp: old.Timestamp, Custom: LogCustom{State: old.Revision.State, Quota: old.Result.Quota}, Legacy: true}
	return le, true
}

// LogFiles returns the decision-log files that exist, oldest first: the
// rotated decisions.jsonl.<LogKeep> … .1, then decisions.jsonl.
func (e *Engine) LogFiles() []string {
	var out []string
	for i := LogKeep; i >= 0; i-- {
		p := e.LogPath()
		if i > 0 {
			p = fmt.Sprintf("%s.%d", p, i)
		}
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// ReadLog returns the decision-log entries that match f, oldest first,
// reading the rotated files and the current one. Lines that do not parse
// (a torn write, a foreign line) are skipped and counted in skipped. A
// project without a decision log has no entries and no error.
func (e *Engine) ReadLog(f LogFilter) (entries []LogEntry, skipped int, err error) {
	for _, path := range e.LogFiles() {
		n, err := scanLog(path, func(line []byte) bool {
			le, ok := ParseLogLine(line)
			if !ok {
				return false
			}
			if f.match(&le) {
				entries = append(entries, le)
				if f.Limit > 0 && len(entries) > 2*f.Limit {
					entries = append(entries[:0], entries[len(entries)-f.Limit:]...)
				}
			}
			return true
		})
		skipped += n
		if err != nil {
			return nil, skipped, err
		}
	}
	if f.Limit > 0 && len(entries) > f.Limit {
		entries = entries[len(entries)-f.Limit:]
	}
	return entries, skipped, nil
}

// FindDecision returns the decision-log entry with this decision id,
// searching the current log first, then the rotated ones. A missing id is
// a *UsageError with code unknown_decision.
func (e *Engine) FindDecision(id string) (LogEntry, error) {
	files := e.LogFiles()
	needle := []byte(`"decision_id":"` + id + `"`)
	for i := len(files) - 1; i >= 0; i-- {
		var found *LogEntry
		if _, err := scanLog(files[i], func(line []byte) bool {
			if found != nil || !bytes.Contains(line, needle) {
				return true
			}
			le, ok := ParseLogLine(line)
			if !ok || le.DecisionID != id {
				return false
			}
			found = &le
			return true
		}); err != nil {
			return LogEntry{}, err
		}
		if found != nil {
			return *found, nil
		}
	}
	return LogEntry{}, Usagef("unknown_decision", "no decision %s in the decision log %s (or its %d rotated files)", id, e.LogPath(), LogKeep)
}

// scanLog calls fn with every line of path (without the newline); fn
// reports whether the line was usable. It returns how many lines were not
// (including overlong ones). A file that vanished (rotated meanwhile) is
// empty.
func scanLog(path string, fn func(line []byte) bool) (skipped int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("decision log: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var buf []byte
	overlong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !overlong {
			if len(buf)+len(chunk) > logMaxLine {
				overlong, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return skipped, fmt.Errorf("decision log %s: %w", path, err)
		}
		line := bytes.TrimSpace(buf)
		switch {
		case overlong:
			skipped++
		case len(line) > 0 && !fn(line):
			skipped++
		}
		buf, overlong = buf[:0], false
		if err != nil { // io.EOF
			return skipped, nil
		}
	}
}
