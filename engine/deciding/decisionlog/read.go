package decisionlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/loopx-dev/loopx/internal/regularfile"
)

// maxLine bounds one decision-log line the reader keeps; longer lines
// (never written by loopx) are skipped without being held in memory.
const maxLine = 4 << 20

// ErrNotFound is Find's error when no line has the decision id.
var ErrNotFound = errors.New("no such decision in the decision log")

// Parse decodes one decision-log line as loopx writes it (an OPA
// decision-log event); ok is false for anything else (a torn write, a
// foreign line, a line without decision_id or result).
func Parse[I, Q any](line []byte) (le Entry[I, Q], ok bool) {
	if err := json.Unmarshal(line, &le); err == nil && le.DecisionID != "" && len(le.Result) > 0 {
		return le, true
	}
	return Entry[I, Q]{}, false
}

// Parse decodes one line of this log: Parse's format, else the legacy
// reader New was given (a line it reads has Legacy set).
func (l *Log[I, Q]) Parse(line []byte) (Entry[I, Q], bool) {
	if le, ok := Parse[I, Q](line); ok {
		return le, true
	}
	if l.legacy == nil {
		return Entry[I, Q]{}, false
	}
	le, ok := l.legacy(line)
	le.Legacy = ok
	return le, ok
}

// Files returns the decision-log files that exist, oldest first: the
// rotated decisions.jsonl.<Keep> … .1, then decisions.jsonl.
func (l *Log[I, Q]) Files() []string {
	var out []string
	for i := Keep; i >= 0; i-- {
		p := l.Path()
		if i > 0 {
			p = fmt.Sprintf("%s.%d", p, i)
		}
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// Read returns the entries keep accepts, oldest first, reading the rotated
// files and the current one; limit > 0 keeps only the newest limit of
// them. Lines that do not parse (a torn write, a foreign line) are skipped
// and counted in skipped. A project without a decision log has no entries
// and no error.
func (l *Log[I, Q]) Read(keep func(*Entry[I, Q]) bool, limit int) (entries []Entry[I, Q], skipped int, err error) {
	_ = l.Flush() // this Log's own lines included
	for _, path := range l.Files() {
		n, err := Scan(path, func(line []byte) bool {
			le, ok := l.Parse(line)
			if !ok {
				return false
			}
			if keep(&le) {
				entries = append(entries, le)
				if limit > 0 && len(entries) > 2*limit {
					entries = append(entries[:0], entries[len(entries)-limit:]...)
				}
			}
			return true
		})
		skipped += n
		if err != nil {
			return nil, skipped, err
		}
	}
	if limit > 0 && len(entries) > limit {
		entries = entries[len(entries)-limit:]
	}
	return entries, skipped, nil
}

// Find returns the entry with decision id, searching the current log
// first, then the rotated ones. Errors: ErrNotFound, or a file that cannot
// be read.
func (l *Log[I, Q]) Find(id string) (Entry[I, Q], error) {
	_ = l.Flush() // this Log's own lines included
	files := l.Files()
	needle := []byte(`"decision_id":"` + id + `"`)
	for i := len(files) - 1; i >= 0; i-- {
		var found *Entry[I, Q]
		if _, err := Scan(files[i], func(line []byte) bool {
			if found != nil || !bytes.Contains(line, needle) {
				return true
			}
			le, ok := l.Parse(line)
			if !ok || le.DecisionID != id {
				return false
			}
			found = &le
			return true
		}); err != nil {
			return Entry[I, Q]{}, err
		}
		if found != nil {
			return *found, nil
		}
	}
	return Entry[I, Q]{}, ErrNotFound
}

// Scan calls fn with every line of the decision-log file path (without the
// newline, surrounding space trimmed, blank lines passed over); fn reports
// whether the line was usable. It returns how many lines were not
// (including lines over 4 MiB, never held in memory). A file that vanished
// (rotated meanwhile) is empty. Errors: the file cannot be opened or read.
func Scan(path string, fn func(line []byte) bool) (skipped int, err error) {
	f, err := regularfile.Open(path)
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
			if len(buf)+len(chunk) > maxLine {
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
