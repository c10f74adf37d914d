package engine

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
	return (f.Goal == "" || le.Result.Goal == f.Goal) &&
		(f.Agent == "" || le.Result.Agent == f.Agent) &&
		(f.Verdict == "" || le.Result.Verdict == f.Verdict) &&
		(f.Query == "" || le.Result.Query == f.Query) &&
		(f.Since.IsZero() || !le.Timestamp.Before(f.Since))
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
			var le LogEntry
			if json.Unmarshal(line, &le) != nil || le.DecisionID == "" {
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
			var le LogEntry
			if json.Unmarshal(line, &le) != nil || le.DecisionID != id {
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
