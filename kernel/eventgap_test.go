package kernel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// logLines returns the log's lines (without LF).
func logLines(t *testing.T, s *Store) [][]byte {
	t.Helper()
	b, err := os.ReadFile(s.EventsPath())
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

func writeLines(t *testing.T, s *Store, lines [][]byte) {
	t.Helper()
	if err := os.WriteFile(s.EventsPath(), append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repair runs RepairEvents in a transaction that also audits it.
func repair(s *Store) (records.EventsRepair, error) {
	var rep records.EventsRepair
	err := s.Update(func(tx *Tx) error {
		var err error
		if rep, err = tx.RepairEvents("human"); err != nil {
			return err
		}
		return tx.AppendEvent(records.Event{Kind: "events.salvaged", Actor: "human", Message: "repaired"})
	})
	return rep, err
}

// TestRepairEvents_BridgesDamageInTheMiddle: a record changed in the
// middle of the log (its checksum left wrong, or made to match), or a line
// added between two records, is cut by the repair: a gap record stands
// for the records cut and links the chain on, checked against the head
// the store committed; the log verifies again, Events shows the gap, and
// a reopen, later writes and a prune through the gap all verify.
func TestRepairEvents_BridgesDamageInTheMiddle(t *testing.T) {
	resign := func(line []byte, edit func(string) string) []byte {
		sp := bytes.LastIndexByte(line, ' ')
		p := []byte(edit(string(line[:sp])))
		sum := sha256.Sum256(p)
		return append(append(p, ' '), hex.EncodeToString(sum[:])...)
	}
	cases := []struct {
		name     string
		damage   func([][]byte) [][]byte
		from, to uint64
		gap      bool
	}{
		{"a byte changed", func(l [][]byte) [][]byte { l[2][20] ^= 1; return l }, 3, 3, true},
		{"a record changed, its checksum made to match", func(l [][]byte) [][]byte {
			l[2] = resign(l[2], func(p string) string { return strings.Replace(p, "event 0", "event X", 1) })
			return l
		}, 3, 3, true},
		{"two records cut out", func(l [][]byte) [][]byte { return append(l[:2:2], l[4:]...) }, 3, 4, true},
		{"the first record changed", func(l [][]byte) [][]byte { l[0][20] ^= 1; return l }, 1, 1, true},
		{"a line added between two records", func(l [][]byte) [][]byte {
			return append(l[:3:3], append([][]byte{[]byte("not a record")}, l[3:]...)...)
		}, 4, 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openT(t, dir)
			for i := 0; i < 6; i++ {
				addEvents(t, s, "g1", 1)
			}
			writeLines(t, s, c.damage(logLines(t, s)))
			if _, err := s.VerifyEvents(); err == nil {
				t.Fatal("the damage was not found")
			}
			rep, err := repair(s)
			if err != nil {
				t.Fatal(err)
			}
			if rep.From != c.from || rep.Through != c.to || rep.Gap != c.gap || rep.Reason == "" {
				t.Fatalf("repair = %+v, want records %d–%d, gap %v", rep, c.from, c.to, c.gap)
			}
			if _, err := s.VerifyEvents(); err != nil {
				t.Fatalf("after the repair: %v", err)
			}
			kinds := eventKinds(t, s)
			if (kinds[GapEventKind] == 1) != c.gap || kinds["events.salvaged"] != 1 {
				t.Fatalf("events after the repair: %v", kinds)
			}
			addEvents(t, s, "g1", 1)
			closeNoShrink(s)
			s = openT(t, dir)
			defer s.Close()
			if _, err := s.VerifyEvents(); err != nil {
				t.Fatalf("after a reopen: %v", err)
			}
			if _, err := repair(s); !errors.Is(err, ErrNothingToRepair) {
				t.Fatalf("a second repair = %v, want ErrNothingToRepair", err)
			}
			if err := s.Update(func(tx *Tx) error {
				_, err := tx.PruneEvents(t0.Add(time.Hour), "human", func(records.Event) bool { return true })
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.VerifyEvents(); err != nil {
				t.Fatalf("after a prune through the gap: %v", err)
			}
		})
	}
}

// fourEvents is a store with four committed events, one a transaction,
// and its log's lines.
func fourEvents(t *testing.T) (*Store, [][]byte) {
	t.Helper()
	s := openT(t, t.TempDir())
	for i := 0; i < 4; i++ {
		addEvents(t, s, "g1", 1)
	}
	return s, logLines(t, s)
}

// TestRepairEvents_RefusesWhatItCannotBridge: a log cut short (its end is
// not the committed head) is left to --accept-store, and one whose records
// after the damage do not lead to the committed head is left to a backup.
func TestRepairEvents_RefusesWhatItCannotBridge(t *testing.T) {
	s, lines := fourEvents(t)
	defer s.Close()
	last := append([]byte(nil), lines[len(lines)-1]...)
	lines[len(lines)-1][20] ^= 1
	writeLines(t, s, lines)
	if _, err := repair(s); err == nil || !strings.Contains(err.Error(), "restore") {
		t.Fatalf("damage in the last record: %v", err)
	}
	lines[len(lines)-1] = last
	lines[1][20] ^= 1
	writeLines(t, s, lines)
	if _, err := repair(s); err != nil {
		t.Fatalf("the repairable damage after a refused repair: %v", err)
	}
}

// TestGap_OnlyACommittedGapStands: a gap links over anything, so one
// written into the log by anyone but a repair — standing for a record
// someone wants gone, its head the cut record's hash — is damage, even
// where a committed gap of the same shape would stand.
func TestGap_OnlyACommittedGapStands(t *testing.T) {
	s, lines := fourEvents(t)
	defer s.Close()
	cut, h, why := parseRecord(lines[1])
	if why != "" {
		t.Fatal(why)
	}
	forged, _, err := encodeRecord(logRecord{I: cut.I, Prev: cut.Prev, Gap: &Gap{Head: h, Through: cut.I, Reason: "nothing to see", At: t0, By: "human"}})
	if err != nil {
		t.Fatal(err)
	}
	lines[1] = bytes.TrimSuffix(forged, []byte("\n"))
	writeLines(t, s, lines)
	_, err = s.VerifyEvents()
	var le *LogError
	if !errors.As(err, &le) || le.Reason != "a gap record the store did not commit" {
		t.Fatalf("a forged gap: %v", err)
	}
	if err := s.View(func(tx *Tx) error { return tx.Events(func(records.Event) bool { return true }) }); err == nil {
		t.Fatal("Events read past a forged gap")
	}
	// The repair cuts the forged gap like any other damage, behind a gap
	// it commits.
	if rep, err := repair(s); err != nil || !rep.Gap || rep.From != cut.I {
		t.Fatalf("repair of a forged gap = %+v, %v", rep, err)
	}
	if _, err := s.VerifyEvents(); err != nil {
		t.Fatal(err)
	}
}

// TestRepairEvents_AfterAReopenOverALengthChange: records cut from (or a
// line added to) the middle of the log of a closed store change its
// length while its first and last records stay the committed ones: the
// store opens (the damage said in its store.recovered event, decisions go
// on), readers find the damage, and the repair bridges it against the
// committed head; before, the open refused the store and only accepting
// it (which keeps the records before the damage) repaired it.
func TestRepairEvents_AfterAReopenOverALengthChange(t *testing.T) {
	cases := map[string]func([][]byte) [][]byte{
		"two records cut out": func(l [][]byte) [][]byte { return append(l[:2:2], l[4:]...) },
		"a line added": func(l [][]byte) [][]byte {
			return append(l[:3:3], append([][]byte{[]byte("not a record")}, l[3:]...)...)
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := openT(t, dir)
			for i := 0; i < 6; i++ {
				addEvents(t, s, "g1", 1)
			}
			lines := damage(logLines(t, s))
			closeNoShrink(s)
			if err := os.WriteFile(s.EventsPath(), append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			s = openT(t, dir)
			if r := s.Recovered(); r == nil || !strings.Contains(r.EventsDamaged, "changed, added or cut") {
				t.Fatalf("recovery = %+v", r)
			}
			if _, err := s.VerifyEvents(); err == nil {
				t.Fatal("the damage was not found")
			}
			if _, err := repair(s); err != nil {
				t.Fatal(err)
			}
			if _, err := s.VerifyEvents(); err != nil {
				t.Fatalf("after the repair: %v", err)
			}
			if k := eventKinds(t, s); k["store.recovered"] != 1 {
				t.Fatalf("events %v, want the damage said once (store.recovered)", k)
			}
			addEvents(t, s, "g1", 1)
			closeNoShrink(s)
			s = openT(t, dir)
			defer s.Close()
			if _, err := s.VerifyEvents(); err != nil {
				t.Fatalf("after a reopen: %v", err)
			}
			if k := eventKinds(t, s); k["store.recovered"] != 1 {
				t.Fatalf("events after a reopen %v: the repaired log was found damaged again", k)
			}
		})
	}
}
