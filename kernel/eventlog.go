package kernel

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
	"time"

	"github.com/loopx-dev/loopx/internal/fsync"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/kernel/records"
)

// EventsFile is the audit event log in the state directory
// (.loopx/events.log): an append-only, hash-chained file beside the store
// that writes never replay.
//
// One record per line:
//
//	PAYLOAD SP HASH LF
//
// PAYLOAD is compact JSON (a logRecord: the record's index "i", the hash
// of the record before it "prev", the store revision that committed it
// "rev", and either an "event" or a "checkpoint"); HASH is the lowercase
// hex SHA-256 of PAYLOAD. The hash is the record's checksum and the link
// the next record names as its prev. A checkpoint, written by pruning, may
// only be the first record: it stands for the records pruned before it, and
// its "head" (the hash of the last pruned record) is what the next record
// names as prev, so the kept records are never rewritten.
const EventsFile = "events.log"

// eventsTornFile keeps the bytes cut from the log's tail on open (a torn
// append, or bytes after the last committed record), for a human to read.
const eventsTornFile = "events.log.torn"

// maxLogLine bounds one record (a line longer than this is damage).
const maxLogLine = 8 << 20

// LogHead is where the event log ends: its size in bytes, the hash of its
// last record ("" for an empty log), what the next record must name as
// prev (Link: the last hash, or a lone checkpoint's Head), how many
// records the file holds (a checkpoint included), and the index its next
// record gets (every record ever written counts, pruned ones included).
// Every commit records the head it leaves in the store's journal; Open
// checks the log against it.
//
// First is the hash of the file's first record (a checkpoint after a
// prune): Open reads the first line too, so a prefix of the log replaced
// (a forged checkpoint padded to the same length) is refused at once.
type LogHead struct {
	Size    int64  `json:"size"`
	Hash    string `json:"hash,omitempty"`
	Link    string `json:"link,omitempty"`
	Records uint64 `json:"records"`
	Next    uint64 `json:"next"`
	First   string `json:"first,omitempty"`
}

// Checkpoint stands, at the start of a pruned log, for the records pruned
// before it (loopx events --prune-before, audit.retain).
type Checkpoint struct {
	// Head is the hash of the last pruned record: the prev of the record
	// after the checkpoint, so the chain stays verifiable from here.
	Head string `json:"head"`
	// Through is the index of the last pruned record.
	Through uint64 `json:"through"`
	// ThroughSeq is the Seq of the last pruned event (0 when none).
	ThroughSeq uint64 `json:"through_seq"`
	// Pruned is how many events were pruned in all (earlier checkpoints'
	// included).
	Pruned uint64 `json:"pruned"`
	// Before is the instant asked for: every pruned event is older.
	Before time.Time `json:"before"`
	// At is when it was pruned, By who asked (human, or loopx applying
	// audit.retain).
	At time.Time `json:"at"`
	By string    `json:"by"`
}

// Gap stands, anywhere in the log, for records a human's repair cut
// because they were damaged (`loopx doctor --salvage`): its index is the
// first it stands for, and its Head is what the record after it names as
// prev (the hash the last cut record had), so the chain goes on verifiable
// past it. The repair is checked against the head the store committed
// before a gap is written.
type Gap struct {
	// Head is the prev of the record after the gap.
	Head string `json:"head"`
	// Through is the index of the last record the gap stands for.
	Through uint64 `json:"through"`
	// Bytes is how many bytes of the file it replaced, Reason what was
	// wrong with the first of them.
	Bytes  int64  `json:"bytes"`
	Reason string `json:"reason"`
	// At is when it was cut, By who asked.
	At time.Time `json:"at"`
	By string    `json:"by"`
}

// logRecord is one line's payload: exactly one of an event, a checkpoint
// and a gap.
type logRecord struct {
	I          uint64         `json:"i"`
	Prev       string         `json:"prev"`
	Rev        uint64         `json:"rev,omitempty"`
	Event      *records.Event `json:"event,omitempty"`
	Checkpoint *Checkpoint    `json:"checkpoint,omitempty"`
	Gap        *Gap           `json:"gap,omitempty"`
}

// LogError is damage found in the event log: the record (1-based line
// number in the file), its byte offset, and what is wrong. `loopx doctor`
// names the first bad record with it.
type LogError struct {
	Path   string
	Record uint64
	Offset int64
	Reason string
}

func (e *LogError) Error() string {
	return fmt.Sprintf("%s: record %d (byte %d): %s", e.Path, e.Record, e.Offset, e.Reason)
}

// encodeRecord renders r as one line (with its LF) and returns the line
// and r's hash.
func encodeRecord(r logRecord) ([]byte, string, error) {
	p, err := json.Marshal(r)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(p)
	h := hex.EncodeToString(sum[:])
	line := make([]byte, 0, len(p)+len(h)+2)
	line = append(append(append(append(line, p...), ' '), h...), '\n')
	return line, h, nil
}

// parseRecord checks one line (without its LF): the hash after the last
// space must be the SHA-256 of the payload before it, and the payload a
// record holding exactly one of an event and a checkpoint. It returns the
// record and its hash, or a reason.
func parseRecord(line []byte) (logRecord, string, string) {
	var r logRecord
	sp := bytes.LastIndexByte(line, ' ')
	if sp < 0 || len(line)-sp-1 != 64 {
		return r, "", "not a record (no checksum)"
	}
	payload, want := line[:sp], string(line[sp+1:])
	sum := sha256.Sum256(payload)
	h := hex.EncodeToString(sum[:])
	if h != want {
		return r, "", "checksum mismatch (the record was changed or damaged)"
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, "", "payload does not decode: " + err.Error()
	}
	if dec.More() {
		return r, "", "payload has trailing data"
	}
	kinds := 0
	for _, set := range []bool{r.Event != nil, r.Checkpoint != nil, r.Gap != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return r, "", "a record holds exactly one event, checkpoint or gap"
	}
	return r, h, ""
}

// logScan is the state of reading a log from its start: the chain so far.
type logScan struct {
	path string
	// gaps are the hashes of the gap records the store committed
	// (Store.gaps): any other gap is damage.
	gaps map[string]bool
	head LogHead
	// link is what the next record's prev must be.
	link string
}

// next checks the record line (without LF) at offset off and advances the
// chain; fn (if not nil) gets each event. It returns a *LogError.
func (sc *logScan) next(line []byte, off int64, fn recordFunc) error {
	n := sc.head.Records + 1
	bad := func(reason string) error { return &LogError{Path: sc.path, Record: n, Offset: off, Reason: reason} }
	r, h, why := parseRecord(line)
	if why != "" {
		return bad(why)
	}
	if r.Prev != sc.link {
		return bad("chain broken: prev is not the hash of the record before it")
	}
	if r.Checkpoint != nil {
		if sc.head.Records != 0 {
			return bad("a checkpoint after the first record")
		}
		if r.I != r.Checkpoint.Through || r.I == 0 {
			return bad("checkpoint index does not match the records it stands for")
		}
		sc.link = r.Checkpoint.Head
	} else if r.Gap != nil {
		if sc.head.Records > 0 && r.I != sc.head.Next || sc.head.Records == 0 && r.I == 0 {
			return bad(fmt.Sprintf("gap index %d where %d was expected", r.I, sc.head.Next))
		}
		if r.Gap.Through < r.I {
			return bad("gap stands for no record")
		}
		if !sc.gaps[h] {
			// A gap links over anything: only one a repair committed to the
			// store (its hash in the chained state) stands.
			return bad("a gap record the store did not commit")
		}
		sc.link = r.Gap.Head
	} else {
		if sc.head.Records > 0 && r.I != sc.head.Next {
			return bad(fmt.Sprintf("index %d where %d was expected", r.I, sc.head.Next))
		}
		if sc.head.Records == 0 && r.I != 1 {
			return bad(fmt.Sprintf("index %d at the start of a log without a checkpoint", r.I))
		}
		sc.link = h
	}
	if sc.head.Records == 0 {
		sc.head.First = h
	}
	sc.head.Records++
	sc.head.Next = r.I + 1
	if r.Gap != nil {
		sc.head.Next = r.Gap.Through + 1
	}
	sc.head.Size = off + int64(len(line)) + 1
	sc.head.Hash = h
	sc.head.Link = sc.link
	if fn != nil {
		return fn(r, h, sc.head.Size)
	}
	return nil
}

// recordFunc gets each record read, its hash, and the offset just past it.
type recordFunc func(r logRecord, hash string, end int64) error

// scanLog reads the log in r from its start, verifying every record's
// checksum and the chain (a gap record must be one of gaps, the store's
// committed gaps), and calls fn for each record. It stops after
// limit bytes (limit < 0: at EOF); a last line without LF is a torn record
// (a *LogError). It returns the head it read to.
func scanLog(path string, gaps map[string]bool, r io.Reader, limit int64, fn recordFunc) (LogHead, error) {
	sc := &logScan{path: path, gaps: gaps}
	if limit >= 0 {
		r = io.LimitReader(r, limit)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var off int64
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			buf = append(buf, chunk...)
			if len(buf) > maxLogLine {
				return sc.head, &LogError{Path: path, Record: sc.head.Records + 1, Offset: off, Reason: "record longer than 8 MiB"}
			}
			continue
		}
		line := chunk
		if buf != nil {
			line = append(buf, chunk...)
			buf = nil
		}
		if err == io.EOF {
			if len(line) > 0 {
				return sc.head, &LogError{Path: path, Record: sc.head.Records + 1, Offset: off, Reason: fmt.Sprintf("torn record: %d bytes without an end of line", len(line))}
			}
			return sc.head, nil
		}
		if err != nil {
			return sc.head, err
		}
		if err := sc.next(line[:len(line)-1], off, fn); err != nil {
			return sc.head, err
		}
		off += int64(len(line))
	}
}

// VerifyLog reads the whole log at path against want (the head the store
// last committed) and gaps (the gap records it committed): every checksum,
// the chain, and that it ends exactly at want. It returns the head read and the first damage as a *LogError. A
// missing file is an empty log.
func VerifyLog(path string, gaps map[string]bool, want LogHead) (LogHead, error) {
	f, err := regularfile.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		if want.Size == 0 {
			return LogHead{}, nil
		}
		return LogHead{}, &LogError{Path: path, Record: 1, Reason: fmt.Sprintf("the file is missing, but the store committed %d records (%d bytes)", want.Records, want.Size)}
	}
	if err != nil {
		return LogHead{}, err
	}
	defer f.Close()
	got, err := scanLog(path, gaps, f, -1, nil)
	if err != nil {
		return got, err
	}
	return got, checkEnds(path, got, want)
}

// checkEnds compares a fully read head with the committed one.
func checkEnds(path string, got, want LogHead) error {
	if got == want {
		return nil
	}
	e := &LogError{Path: path, Record: got.Records, Offset: got.Size}
	switch {
	case got.Size < want.Size:
		e.Reason = fmt.Sprintf("the log ends at byte %d, but the store committed it up to byte %d (truncated?)", got.Size, want.Size)
	case got.Size > want.Size:
		e.Reason = fmt.Sprintf("the log goes on past byte %d, where the store's last commit ended it", want.Size)
	default:
		e.Reason = fmt.Sprintf("the log's head (%d records, last hash %.12s) is not the one the store committed (%d records, last hash %.12s)", got.Records, got.Hash, want.Records, want.Hash)
	}
	return e
}

// recordEndingAt reads the record whose LF is the byte at end-1 in f and
// returns it with its hash, reading backwards in bounded chunks (cost
// independent of the log's length). end must be > 0.
func recordEndingAt(f *os.File, end int64) (logRecord, string, error) {
	var r logRecord
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, end-1); err != nil {
		return r, "", err
	}
	if last[0] != '\n' {
		return r, "", errors.New("no end of line where the record should end")
	}
	start := end - 1
	var line []byte
	for start > 0 {
		n := int64(64 << 10)
		if n > start {
			n = start
		}
		chunk := make([]byte, n)
		if _, err := f.ReadAt(chunk, start-n); err != nil {
			return r, "", err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			line = append(chunk[i+1:], line...)
			start = start - n + int64(i) + 1
			break
		}
		line = append(chunk, line...)
		start -= n
		if int64(len(line)) > maxLogLine {
			return r, "", errors.New("record longer than 8 MiB")
		}
	}
	if start == 0 && line == nil {
		// The whole prefix is this one record.
		line = make([]byte, end-1)
		if _, err := f.ReadAt(line, 0); err != nil {
			return r, "", err
		}
	}
	r, h, why := parseRecord(line)
	if why != "" {
		return r, "", errors.New(why)
	}
	return r, h, nil
}

// endsAt reports whether the log in f holds a record ending at head.Size
// whose hash is head.Hash (always true for the empty head).
func endsAt(f *os.File, head LogHead) bool {
	if head.Size == 0 {
		return true
	}
	_, h, err := recordEndingAt(f, head.Size)
	return err == nil && h == head.Hash && startsWith(f, head)
}

// endsWith reports whether the log in f, size bytes long, ends with the
// record whose hash is head.Hash and begins as head does (startsWith),
// wherever that last record lies.
func endsWith(f *os.File, size int64, head LogHead) bool {
	if size == 0 {
		return false
	}
	_, h, err := recordEndingAt(f, size)
	return err == nil && h == head.Hash && startsWith(f, head)
}

// startsWith reports whether the log in f begins with the record whose
// hash is head.First (true when head predates First), reading its first
// line only.
func startsWith(f *os.File, head LogHead) bool {
	if head.First == "" {
		return true
	}
	for n := int64(64 << 10); ; n *= 2 {
		buf := make([]byte, min(n, head.Size))
		k, err := f.ReadAt(buf, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return false
		}
		if i := bytes.IndexByte(buf[:k], '\n'); i >= 0 {
			_, h, why := parseRecord(buf[:i])
			return why == "" && h == head.First
		}
		if int64(k) >= head.Size || n >= maxLogLine {
			return false
		}
	}
}

// appendRecords renders events (committed at revision rev) as records
// after head and returns the bytes to append and the new head.
func appendRecords(head LogHead, rev uint64, events []records.Event) ([]byte, LogHead, error) {
	var out []byte
	if head.Next == 0 {
		head.Next = 1
	}
	for i := range events {
		ev := events[i]
		line, h, err := encodeRecord(logRecord{I: head.Next, Prev: head.Link, Rev: rev, Event: &ev})
		if err != nil {
			return nil, head, err
		}
		out = append(out, line...)
		head.Next++
		if head.Records == 0 {
			head.First = h
		}
		head.Records++
		head.Size += int64(len(line))
		head.Hash, head.Link = h, h
	}
	return out, head, nil
}

// syncDir fsyncs a directory (after a rename or a file creation in it).
func syncDir(dir string) error { return fsync.Dir(dir) }
