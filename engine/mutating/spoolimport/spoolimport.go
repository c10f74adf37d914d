// Package spoolimport moves the hooks' denial spool (package hosts: hooks
// append denials there without the state lock) into the audit log, inside
// the write transaction of the next mutation: each denial one
// permission.denied event, each spool segment imported exactly once. It
// writes through Tx and never imports the top engine package.
package spoolimport

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Tx is what an import reads and writes: a kernel write transaction.
type Tx interface {
	SpoolImported() (map[string]string, error)
	SetSpoolImported(m map[string]string) error
	AppendEvent(e records.Event) error
}

// DenialEvent is the permission.denied event of the denial r (a
// hooks.stopped event for a hook stopped past its deadline,
// hosts.HookStopped). The spool
// lies in the work tree and is written without the state lock, so a line
// can be forged by an agent: its agent is the event's actor only when it
// names an agent, never a reserved actor ("human", "loopx", none), which
// becomes UnverifiedActor.
func DenialEvent(r hosts.Denial) records.Event {
	data := map[string]any{"tool": r.Tool, "action": r.Action, "codes": r.Codes, "verdict": r.Verdict, "denied_at": r.At.UTC().Format(time.RFC3339Nano)}
	actor := r.Agent
	if reservedActor(actor) {
		data["claimed_actor"] = actor
		actor = UnverifiedActor
	}
	kind := "permission.denied"
	if r.Kind == hosts.HookStopped {
		kind = hosts.HookStopped
	}
	return records.Event{Kind: kind, Goal: r.Goal, Actor: actor, Subject: r.DecisionID, Message: r.Message, Data: data}
}

// Unspooled appends the permission.denied event of r, which could not be
// spooled because of err, and, when err is a link found where the spool is
// written (internal/nofollow), the fs.link_refused event that says so.
func Unspooled(tx Tx, r hosts.Denial, err error) error {
	if ev, ok := linkEvent(err); ok {
		if err := tx.AppendEvent(ev); err != nil {
			return err
		}
	}
	return tx.AppendEvent(DenialEvent(r))
}

// UnverifiedActor is the actor of a spooled denial whose line names no
// agent, or an actor an agent cannot be (DenialEvent).
const UnverifiedActor = "unverified"

// reservedActor reports whether a is an actor a hook's line may not claim:
// a human, loopx itself, or none.
func reservedActor(a string) bool {
	switch strings.ToLower(strings.TrimSpace(a)) {
	case "", "human", "loopx", "dashboard", "terminal":
		return true
	}
	return strings.HasPrefix(strings.ToLower(a), "human")
}

// Limits bound one import, so that a spool padded by an agent (it lies in
// the work tree) can neither hold a writer for long, fill its memory, nor
// flood the audit log: at most Lines lines, Bytes bytes and Time per
// import, each line kept to LineBytes (the rest of a longer line is read
// past, never held). What is left waits in its segment for the next import
// (which goes on where this one stopped), and one event says how much.
var Limits = struct {
	Lines     int
	Bytes     int64
	Time      time.Duration
	LineBytes int
}{Lines: 1000, Bytes: 1 << 20, Time: 500 * time.Millisecond, LineBytes: 8 << 10}

// Import imports the spool in dir into tx: the live file is rotated into
// a segment, and each segment is read on from where the last import
// stopped (its progress is recorded in tx), one permission.denied event
// per line (an unreadable or torn line is kept as written), within Limits;
// past them one permission.spool_deferred event counts the bytes left.
// It returns the segment files read to their end, to delete once tx has
// committed (those committed before a crash too: never imported twice).
// A link in the spool (internal/nofollow) is never followed: it is
// recorded as an fs.link_refused event; a segment that is a link is
// deleted (the link, never its target), a linked spool directory waits. Errors
// reading the spool are returned (the caller's transaction then fails
// and nothing is lost).
func Import(tx Tx, dir string) ([]string, error) {
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
		return nil, linkOr(tx, err)
	} else if seg != "" {
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		return nil, nil
	}
	// Only the oldest MaxSegments are looked at (each is opened): the
	// others are counted and wait.
	waiting := 0
	if len(segs) > MaxSegments {
		segs, waiting = segs[:MaxSegments], len(segs)-MaxSegments
	}
	b := budget{start: time.Now()}
	mark := map[string]string{}
	fresh := false
	var files []string
	var left int64
	leftSegs := 0
	for _, name := range segs {
		path := filepath.Join(dir, name)
		p, ok, err := progressOf(dir, name, done[name])
		if ev, link := linkEvent(err); link {
			// A link made a segment (the live file was one): never read
			// through; the link itself is deleted with the segments.
			if err := tx.AppendEvent(ev); err != nil {
				return nil, err
			}
			fresh = true
			files = append(files, path)
			continue
		}
		if err != nil {
			return nil, err
		}
		if ok && p.end {
			mark[name] = done[name]
			files = append(files, path) // committed before a crash: delete, never import twice
			continue
		}
		if !b.spent() {
			fresh = true
			if p, err = importSegment(tx, dir, name, p, &b); err != nil {
				return nil, err
			}
		}
		mark[name] = p.String()
		if p.end {
			files = append(files, path)
		} else {
			left += p.size - p.off
			leftSegs++
		}
	}
	leftSegs += waiting
	if left > 0 || waiting > 0 {
		if err := tx.AppendEvent(records.Event{Kind: "permission.spool_deferred", Actor: "loopx", Subject: SpoolPath,
			Message: fmt.Sprintf("denial spool: this import stopped at its bounds (%d lines, %d bytes, %s per import; at most %d segments looked at); %d bytes in %d segment(s) wait for the next import (a hook writes one short line per denial: delete %s/denials-*.importing to drop them)",
				Limits.Lines, Limits.Bytes, Limits.Time, MaxSegments, left, leftSegs, SpoolPath),
			Data: map[string]any{"bytes_left": left, "segments_left": leftSegs, "segments_not_looked_at": waiting, "lines_imported": b.lines, "bytes_imported": b.bytes}}); err != nil {
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

// MaxSegments is how many spool segments one import looks at.
const MaxSegments = 100

// SpoolPath is the spool directory as a human finds it in the project.
const SpoolPath = ".loopx/" + hosts.SpoolDir

// linkOr is nil after recording an fs.link_refused event when err is a
// link found in the spool (the spool waits; writers go on), else err.
func linkOr(tx Tx, err error) error {
	if ev, ok := linkEvent(err); ok {
		return tx.AppendEvent(ev)
	}
	return err
}

// linkEvent is the fs.link_refused event of a write or read of the spool
// refused because a link was found there (a *nofollow.LinkError in err):
// Subject the link's path, Data {path, target, hard}; ok is false for any
// other error. (The engine's other refusals are audit.LinkRefusal's; this
// package stays below the policy layer.)
func linkEvent(err error) (e records.Event, ok bool) {
	var le *nofollow.LinkError
	if !errors.As(err, &le) {
		return e, false
	}
	return records.Event{Kind: "fs.link_refused", Actor: "loopx", Subject: le.Path,
		Message: "the denial spool: " + le.Error(),
		Data:    map[string]any{"path": le.Path, "target": le.Target, "hard": le.Hard}}, true
}

// budget is what one import has used of Limits.
type budget struct {
	start time.Time
	lines int
	bytes int64
}

func (b *budget) spent() bool {
	return b.lines >= Limits.Lines || b.bytes >= Limits.Bytes || time.Since(b.start) >= Limits.Time
}

// progress is how far a segment has been imported: off bytes, line
// lines, of size bytes; end once it was read to its end.
type progress struct {
	off, size int64
	line      int
	end       bool
}

// String is the progress as the store records it: "at:OFF:LINE" or
// "end:SIZE:LINE".
func (p progress) String() string {
	if p.end {
		return fmt.Sprintf("end:%d:%d", p.off, p.line)
	}
	return fmt.Sprintf("at:%d:%d", p.off, p.line)
}

// progressOf reads a segment's recorded progress v ("" none) with its
// current size; ok is false when nothing was recorded. A record of an
// older loopx (the whole segment's sha256) is the end when it matches.
func progressOf(dir, name, v string) (p progress, ok bool, err error) {
	root, rel := spoolRel(dir, name)
	f, err := nofollow.OpenFile(root, rel, os.O_RDONLY, 0)
	if err != nil {
		return p, false, fmt.Errorf("reading the denial spool: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return p, false, err
	}
	p.size = fi.Size()
	if v == "" {
		return p, false, nil
	}
	var kind string
	if parts := strings.Split(v, ":"); len(parts) == 3 {
		kind = parts[0]
		p.off, _ = strconv.ParseInt(parts[1], 10, 64)
		p.line, _ = strconv.Atoi(parts[2])
	}
	switch kind {
	case "end":
		p.end = true
	case "at":
	default: // an older loopx's record: the content's sha256
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return p, false, err
		}
		p.end = hex.EncodeToString(h.Sum(nil)) == v
		p.off = p.size
	}
	p.off = min(p.off, p.size)
	return p, true, nil
}

// spoolRel returns the directory the spool is reached from without
// following links (the project root) and the segment's path below it.
func spoolRel(dir, name string) (string, string) {
	return filepath.Dir(filepath.Dir(dir)), filepath.Join(filepath.Base(filepath.Dir(dir)), filepath.Base(dir), name)
}

// importSegment appends one permission.denied event per line of the
// segment name from p on, reading it as a stream, until its end or the
// budget is spent; it returns how far it got.
func importSegment(tx Tx, dir, name string, p progress, b *budget) (progress, error) {
	root, rel := spoolRel(dir, name)
	f, err := nofollow.OpenFile(root, rel, os.O_RDONLY, 0)
	if err != nil {
		return p, fmt.Errorf("reading the denial spool: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(p.off, io.SeekStart); err != nil {
		return p, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for !b.spent() {
		line, n, torn, err := readLine(r)
		if n == 0 && err == io.EOF {
			p.end = true
			break
		}
		if err != nil && err != io.EOF {
			return p, fmt.Errorf("reading the denial spool: %w", err)
		}
		p.off += n
		p.line++
		b.lines++
		b.bytes += n
		if err := importLine(tx, name, p.line, line, n, torn); err != nil {
			return p, err
		}
	}
	p.end = p.end || p.off >= p.size
	return p, nil
}

// readLine reads one line: at most Limits.LineBytes of it kept (without
// its newline), n bytes consumed (at most about Limits.Bytes: a longer
// line is cut), torn when the file ended before a newline.
func readLine(r *bufio.Reader) (line []byte, n int64, torn bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		n += int64(len(chunk))
		if room := Limits.LineBytes - len(line); room > 0 {
			line = append(line, chunk[:min(len(chunk), room)]...)
		}
		switch {
		case err == nil:
			return bytes.TrimSuffix(line, []byte("\n")), n, false, nil
		case err == bufio.ErrBufferFull && n >= Limits.Bytes:
			// A "line" past a whole import's bytes: cut here; the rest is
			// read on as lines of its own by the next import.
			return line, n, false, nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			return line, n, n > 0, io.EOF
		default:
			return line, n, false, err
		}
	}
}

// importLine appends the event of one spooled line (the lineno-th of the
// segment name, n bytes long as written).
func importLine(tx Tx, name string, lineno int, line []byte, n int64, torn bool) error {
	var r hosts.Denial
	if len(bytes.TrimSpace(line)) == 0 && !torn {
		return nil
	}
	long := n-1 > int64(Limits.LineBytes)
	if torn || long || json.Unmarshal(line, &r) != nil || r.Goal == "" && r.Kind == "" || r.Kind != "" && r.Kind != hosts.HookStopped {
		what := "an unreadable line"
		switch {
		case torn:
			what = "a torn line (the hook stopped while writing it)"
		case long:
			what = fmt.Sprintf("a line of %d bytes (longer than a hook writes)", n)
		}
		text := string(line)
		if len(text) > 2048 {
			text = text[:2048] + "…"
		}
		// Whoever wrote the line is not known: never loopx, never a human.
		return tx.AppendEvent(records.Event{Kind: "permission.denied", Actor: UnverifiedActor, Subject: name + ":" + strconv.Itoa(lineno),
			Message: "denial spool: " + what + " kept as written",
			Data:    map[string]any{"raw": text, "spool": name, "line": lineno}})
	}
	return tx.AppendEvent(DenialEvent(r))
}
