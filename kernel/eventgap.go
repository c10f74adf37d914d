package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/kernel/records"
)

// keyGaps holds the hashes of the gap records repairs wrote (a JSON list):
// part of the chained state, so a gap record written to the log by anyone
// else is damage.
const keyGaps = "meta:event_gaps"

// loadGaps reads the committed gaps into s.gaps: the store's, and those
// of the last transaction's journal j (nil: none), which open may not
// have applied yet when it recovers the log.
func (s *Store) loadGaps(j *journal) error {
	s.gaps = map[string]bool{}
	var raws []string
	if err := s.db.View(func(btx *buntdb.Tx) error {
		v, err := btx.Get(keyGaps)
		if err == nil {
			raws = append(raws, payloadOf(keyGaps, v))
		} else if !errors.Is(err, buntdb.ErrNotFound) {
			return err
		}
		return nil
	}); err != nil {
		return err
	}
	if j != nil {
		for _, kv := range j.Sets {
			if kv[0] == keyGaps {
				raws = append(raws, payloadOf(keyGaps, kv[1]))
			}
		}
	}
	for _, raw := range raws {
		var hs []string
		if err := json.Unmarshal([]byte(raw), &hs); err != nil {
			return fmt.Errorf("%s does not decode: %w", keyGaps, err)
		}
		for _, h := range hs {
			s.gaps[h] = true
		}
	}
	return nil
}

// GapEventKind is the kind of the event Tx.Events yields where the log
// holds a gap: the history says where records were cut, and why.
const GapEventKind = "events.gap"

// gapEvent is what Events yields for the gap g at index i.
func gapEvent(i uint64, g Gap) records.Event {
	return records.Event{Kind: GapEventKind, Actor: "loopx", At: g.At, Subject: EventsFile,
		Message: fmt.Sprintf("%s of %s (%d bytes) damaged (%s), cut by %s's repair; the hash chain goes on past the gap", RecordSpan(i, g.Through), EventsFile, g.Bytes, g.Reason, g.By),
		Data:    map[string]any{"from": i, "through": g.Through, "bytes": g.Bytes, "reason": g.Reason, "by": g.By}}
}

// maxRepairBytes bounds the log RepairEvents reads into memory.
const maxRepairBytes = 256 << 20

// RecordSpan names the log records from through to: "record 3" or
// "records 3–5".
func RecordSpan(from, to uint64) string {
	if from == to {
		return fmt.Sprintf("record %d", from)
	}
	return fmt.Sprintf("records %d–%d", from, to)
}

// ErrNothingToRepair is returned by RepairEvents for a log that verifies.
var ErrNothingToRepair = errors.New("the event log verifies: nothing to repair")

// line is one line of the log file: where it starts and its bytes
// (without LF).
type line struct {
	off int64
	b   []byte
}

// RepairEvents plans the repair of an event log damaged in the middle (a
// record changed, cut or added where the store's committed head still
// ends the log): the damaged span is replaced by one gap record whose head
// links the chain on, and the log is rewritten when the transaction
// commits (journaled, as a prune is). It is checked against the head the
// store committed: the records after the span must verify from the gap to
// exactly that head. A span that holds no record (bytes added between two
// records) is cut without a gap; the repair's own audit event says so.
// by is recorded on the gap. It returns what it cut. Errors:
// ErrNothingToRepair; a damage it cannot bridge (nothing after it verifies
// to the committed head: restore the log from a backup), as a StoreError;
// a second rewrite in the transaction.
func (tx *Tx) RepairEvents(by string) (records.EventsRepair, error) {
	var rep records.EventsRepair
	if !tx.writable {
		return rep, errors.New("kernel: write in a read-only transaction")
	}
	if tx.prune != nil {
		return rep, errors.New("kernel: one rewrite of the event log per transaction")
	}
	s := tx.s
	path := s.EventsPath()
	want := s.head
	f, err := regularfile.Open(path)
	if err != nil {
		return rep, StoreError(path, err)
	}
	defer f.Close()
	// The whole file: damage that changed its length still ends at the
	// committed head's last record.
	data, err := io.ReadAll(io.LimitReader(f, maxRepairBytes+1))
	if err != nil {
		return rep, StoreError(path, err)
	}
	if int64(len(data)) > maxRepairBytes {
		return rep, StoreError(path, fmt.Errorf("the log is over %d MiB: restore it from a backup, or prune it first", maxRepairBytes>>20))
	}
	var lines []line
	for off := 0; off < len(data); {
		n := bytes.IndexByte(data[off:], '\n')
		if n < 0 {
			n = len(data) - off
		}
		lines = append(lines, line{off: int64(off), b: data[off : off+n]})
		off += n + 1
	}
	// The prefix that verifies, and the first damage.
	sc := &logScan{path: path, gaps: s.gaps}
	var last logScan // the scan's state before the last good line
	bad := -1
	var damage error
	for i, l := range lines {
		before := *sc
		if err := sc.next(l.b, l.off, nil); err != nil {
			bad, damage = i, err
			break
		}
		last = before
	}
	if bad < 0 {
		if err := checkEnds(path, sc.head, want); err != nil {
			return rep, StoreError(path, fmt.Errorf("%v: the end of the log is damaged, not its middle (`loopx doctor --accept-store` keeps the records that verify)", err))
		}
		return rep, ErrNothingToRepair
	}
	// The first line from the damage on after which every record verifies
	// to exactly the committed head.
	resume := -1
	var after LogHead
	for j := bad; j < len(lines) && resume < 0; j++ {
		r, _, why := parseRecord(lines[j].b)
		if why != "" || r.Checkpoint != nil {
			continue
		}
		rest := &logScan{path: path, gaps: s.gaps, link: r.Prev, head: LogHead{Records: 1, Next: r.I}}
		ok := true
		for _, l := range lines[j:] {
			if rest.next(l.b, l.off, nil) != nil {
				ok = false
				break
			}
		}
		if ok && rest.head.Hash == want.Hash && rest.head.Next == want.Next && rest.head.Size == int64(len(data)) {
			resume, after = j, rest.head
			after.Records-- // the fake record the scan started from
		}
	}
	if resume < 0 {
		return rep, StoreError(path, fmt.Errorf("%v: no record after it verifies to the head the store committed; restore %s from a backup", damage, EventsFile))
	}
	first, firstH, _ := parseRecord(lines[resume].b)
	start, pre := bad, *sc
	if first.I == sc.head.Next && first.Prev != sc.link {
		// The record before the damage was changed with its checksum made
		// to match: the link after it is what broke, so it goes with the
		// span.
		if bad == 0 {
			return rep, StoreError(path, damage)
		}
		start, pre = bad-1, last
	}
	startOff, resumeOff := lines[start].off, lines[resume].off
	rep.Bytes, rep.Reason = resumeOff-startOff, damage.Error()
	var le *LogError
	if errors.As(damage, &le) {
		rep.Reason = le.Reason
	}
	rep.From = pre.head.Next
	if pre.head.Records == 0 {
		rep.From = 1
	}
	to := LogHead{Hash: want.Hash, Link: want.Link, Next: want.Next, First: want.First, Records: pre.head.Records + after.Records}
	if first.I <= rep.From {
		if first.I != rep.From || first.Prev != pre.link {
			return rep, StoreError(path, fmt.Errorf("%v: the records around it do not link; restore %s from a backup", damage, EventsFile))
		}
		// Bytes between two records that link: cut, no gap.
		rep.Through = rep.From - 1
		to.Size = startOff + int64(len(data)) - resumeOff
		if pre.head.Records == 0 {
			to.First = firstH
		}
		tx.prune = &pruneReq{prefix: startOff, line: []byte{}, keepFrom: resumeOff, to: to, oldSize: int64(len(data))}
		tx.wrote = true
		return rep, nil
	}
	rep.Through, rep.Gap = first.I-1, true
	g := Gap{Head: first.Prev, Through: rep.Through, Bytes: rep.Bytes, Reason: rep.Reason, At: tx.now, By: by}
	gl, gh, err := encodeRecord(logRecord{I: rep.From, Prev: pre.link, Gap: &g})
	if err != nil {
		return rep, err
	}
	to.Size = startOff + int64(len(gl)) + int64(len(data)) - resumeOff
	to.Records++
	if pre.head.Records == 0 {
		to.First = gh
	}
	// The gap stands only once the store holds its hash (Store.gaps).
	committed := make([]string, 0, len(s.gaps)+1)
	for h := range s.gaps {
		committed = append(committed, h)
	}
	sort.Strings(committed)
	b, err := json.Marshal(append(committed, gh))
	if err != nil {
		return rep, err
	}
	if err := tx.set(keyGaps, string(b)); err != nil {
		return rep, err
	}
	tx.prune = &pruneReq{prefix: startOff, line: gl, keepFrom: resumeOff, to: to, oldSize: int64(len(data))}
	tx.wrote = true
	return rep, nil
}
