package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// TestLogWhileRefused: a refusal that could not be audited because the
// store is refused waits in the refusal log; any other write failure, or
// none, keeps nothing.
func TestLogWhileRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		kept bool
	}{
		{"rolled back", StoreError("state.db", fmt.Errorf("%w: behind", ErrRolledBack)), true},
		{"tampered", StoreError("state.db", fmt.Errorf("%w: off chain", ErrTampered)), true},
		{"schema too new", fmt.Errorf("open: %w", ErrSchemaTooNew), true},
		{"schema unknown", ErrSchemaUnknown, true},
		{"lock timeout", ErrLockTimeout, false},
		{"other", errors.New("disk full"), false},
		{"written", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".loopx")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			r := Refusal{At: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Code: "bad_channel", Message: "agent:a1 loopx doctor --accept-store: refused"}
			if got := LogWhileRefused(dir, tc.err, r); got != tc.kept {
				t.Fatalf("kept %v, want %v", got, tc.kept)
			}
			adir, err := AnchorDirOf(dir)
			if err != nil {
				t.Fatal(err)
			}
			rs, _, err := ReadRefusals(adir)
			if err != nil || (len(rs) == 1) != tc.kept || (tc.kept && rs[0] != r) {
				t.Fatalf("refusal log %+v, %v; kept %v", rs, err, tc.kept)
			}
		})
	}
}

// TestRefusals_ImportedWhenHealthyAgainAndBounded: refusal lines left in
// the anchor directory (the store was refused, then put back) become
// store.refused events at the next open of the healthy store, with one
// event saying it was put back without a repair; the file is emptied; a
// log padded with lines by a process outside a sandbox imports at most
// maxRefusalEvents of them and says how many it left out.
func TestRefusals_ImportedWhenHealthyAgainAndBounded(t *testing.T) {
	for _, lines := range []int{2, maxRefusalEvents + 50} {
		t.Run(strconv.Itoa(lines), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".loopx")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			openT(t, dir).Close()
			adir, err := AnchorDirOf(dir)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < lines; i++ {
				logRefusal(adir, Refusal{At: t0, Code: "store_behind", Message: fmt.Sprintf("refusal %d", i)})
			}
			s := openT(t, dir)
			defer s.Close()
			var got []records.Event
			if err := s.View(func(tx *Tx) error {
				return tx.Events(func(e records.Event) bool {
					if e.Kind == "store.refused" {
						got = append(got, e)
					}
					return true
				})
			}); err != nil {
				t.Fatal(err)
			}
			imported, omitted := min(lines, maxRefusalEvents), lines-min(lines, maxRefusalEvents)
			want := imported + 1
			if omitted > 0 {
				want++
				if got[0].Data["found"] != "refusals_omitted" || !strings.Contains(got[0].Message, fmt.Sprintf("%d older lines", omitted)) {
					t.Fatalf("first event %+v", got[0])
				}
			}
			if len(got) != want {
				t.Fatalf("%d store.refused events, want %d", len(got), want)
			}
			if last := got[len(got)-1]; !strings.Contains(last.Message, fmt.Sprintf("refused %d time(s)", lines)) || last.Data["found"] != "store_restored" {
				t.Fatalf("last event %+v", last)
			}
			if got[len(got)-2].Message != fmt.Sprintf("refusal %d", lines-1) {
				t.Fatalf("newest refusal not kept: %+v", got[len(got)-2])
			}
			if rs, _, _ := ReadRefusals(adir); len(rs) != 0 {
				t.Fatalf("refusal log kept %d lines", len(rs))
			}
		})
	}
}

// TestRefusals_PaddingHidesNoNewerRefusal: a refusal log padded by a
// process outside a sandbox (1.5 MiB of long lines: longer than what is
// read; 5 MiB: longer than what is kept; 300 KiB of short lines: more
// lines than are kept) still yields the refusal logged after the padding,
// and the import says the log was padded (bytes not read, or dropped when
// it was trimmed); before, a log over the read limit was not read at all,
// and every refusal in it was lost, and a log of many lines within the
// size limit was kept whole.
func TestRefusals_PaddingHidesNoNewerRefusal(t *testing.T) {
	for _, c := range []struct {
		pad, message int
		found        string
	}{{3 << 19, 1900, "refusals_skipped"}, {5 << 20, 200, "refusals_trimmed"}, {300 << 10, 200, "refusals_trimmed"}} {
		t.Run(strconv.Itoa(c.pad), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".loopx")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			openT(t, dir).Close()
			adir, err := AnchorDirOf(dir)
			if err != nil {
				t.Fatal(err)
			}
			line := fmt.Sprintf(`{"at":"2026-11-29T10:00:00Z","code":"store_behind","message":"%s"}`+"\n", strings.Repeat("x", c.message))
			if err := os.WriteFile(filepath.Join(adir, RefusalsFile), bytes.Repeat([]byte(line), c.pad/len(line)), 0o600); err != nil {
				t.Fatal(err)
			}
			logRefusal(adir, Refusal{At: t0, Code: "bad_channel", Message: "agent:a1 loopx doctor --accept-store: refused"})
			if fi, err := os.Stat(filepath.Join(adir, RefusalsFile)); err != nil || fi.Size() > keepRefusalsBytes {
				t.Fatalf("refusal log %v, %v: not kept within %d bytes", fi.Size(), err, keepRefusalsBytes)
			}
			if b, err := os.ReadFile(filepath.Join(adir, RefusalsFile)); err != nil || bytes.Count(b, []byte{'\n'}) > maxRefusalLines+1 {
				t.Fatalf("refusal log of %d lines (%v): not kept within %d", bytes.Count(b, []byte{'\n'}), err, maxRefusalLines)
			}
			s := openT(t, dir)
			defer s.Close()
			found := map[string]int{}
			if err := s.View(func(tx *Tx) error {
				return tx.Events(func(e records.Event) bool {
					if e.Kind == "store.refused" {
						found[fmt.Sprint(e.Data["found"])]++
					}
					return true
				})
			}); err != nil {
				t.Fatal(err)
			}
			if found["bad_channel"] != 1 || found[c.found] != 1 {
				t.Fatalf("store.refused events by what they found: %v", found)
			}
		})
	}
}

// TestRefusals_PaddingWithinTheReadLimitIsAudited: a refusal log padded,
// while the store is refused, with lines that are no refusal loopx writes
// (not JSON, no code, a code longer than any loopx writes) and with
// refusals carrying huge messages — all within the part that is read —
// is imported, when a human accepts the store, with one event saying how
// many lines were not imported and one saying how many messages were cut,
// and no event carries a message longer than maxRefusalMessage (and a
// little). Before, such lines were passed over without a word and a
// padded message went into the event log whole.
func TestRefusals_PaddingWithinTheReadLimitIsAudited(t *testing.T) {
	dir := chainStore(t, 2)
	copyTo(t, filepath.Join(dir, DBFile), filepath.Join(dir, "old.db"))
	s, err := openDir(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(func(tx *Tx) error { _, err := tx.AddTodo(records.Todo{Goal: "g1", Title: "later"}); return err }); err != nil {
		t.Fatal(err)
	}
	closeNoShrink(s)
	copyTo(t, filepath.Join(dir, "old.db"), filepath.Join(dir, DBFile))
	if _, err := openDir(dir, false); !errors.Is(err, ErrRolledBack) {
		t.Fatalf("a store put back: %v, want refused", err)
	}
	adir, err := AnchorDirOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pad bytes.Buffer
	const garbage, noCode, longCode, huge = 300, 20, 5, 3
	for i := 0; i < garbage; i++ {
		fmt.Fprintf(&pad, "padding %d %s\n", i, strings.Repeat("z", 100))
	}
	for i := 0; i < noCode; i++ {
		fmt.Fprintf(&pad, `{"at":"2026-11-29T10:00:00Z","message":"no code %d"}`+"\n", i)
	}
	for i := 0; i < longCode; i++ {
		fmt.Fprintf(&pad, `{"at":"2026-11-29T10:00:00Z","code":"%s","message":"long code"}`+"\n", strings.Repeat("c", maxRefusalCode+1))
	}
	for i := 0; i < huge; i++ {
		fmt.Fprintf(&pad, `{"at":"2026-11-29T10:00:00Z","code":"store_behind","message":"%s"}`+"\n", strings.Repeat("m", 100<<10))
	}
	f, err := os.OpenFile(filepath.Join(adir, RefusalsFile), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(pad.Bytes()); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if pad.Len() >= maxRefusalsBytes {
		t.Fatalf("padding of %d bytes: not within the part read", pad.Len())
	}
	logRefusal(adir, Refusal{At: t0, Code: "bad_channel", Message: "agent:a1 loopx doctor --accept-store: refused"})
	s, err = openDir(dir, true)
	if err != nil {
		t.Fatalf("accepting the store: %v", err)
	}
	defer closeNoShrink(s)
	found := map[string]records.Event{}
	longest := 0
	if err := s.View(func(tx *Tx) error {
		return tx.Events(func(e records.Event) bool {
			if e.Kind == "store.refused" {
				found[fmt.Sprint(e.Data["found"])] = e
				longest = max(longest, len(e.Message))
			}
			return true
		})
	}); err != nil {
		t.Fatal(err)
	}
	kinds := slices.Sorted(maps.Keys(found))
	m, ok := found["refusals_malformed"]
	if !ok || fmt.Sprint(m.Data["lines"]) != fmt.Sprint(garbage+noCode+longCode) {
		t.Fatalf("no event counts the %d lines that are no refusal (store.refused events found: %.300q)", garbage+noCode+longCode, kinds)
	}
	if c, ok := found["refusals_cut"]; !ok || fmt.Sprint(c.Data["lines"]) != fmt.Sprint(huge) {
		t.Fatalf("no event counts the %d messages cut (store.refused events found: %.300q)", huge, kinds)
	}
	if _, ok := found["bad_channel"]; !ok {
		t.Fatalf("the refusal logged after the padding was not imported (found: %.300q)", kinds)
	}
	if longest > maxRefusalMessage+16 {
		t.Fatalf("a store.refused event of %d bytes: padding reached the event log whole", longest)
	}
	if rs, _, _ := ReadRefusals(adir); len(rs) != 0 {
		t.Fatalf("refusal log kept %d lines after the import", len(rs))
	}
}
