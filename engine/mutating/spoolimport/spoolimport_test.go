package spoolimport

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/kernel/records"
)

// fakeTx is an in-memory Tx.
type fakeTx struct {
	imported map[string]string
	events   []records.Event
}

func (f *fakeTx) SpoolImported() (map[string]string, error) {
	m := map[string]string{}
	for k, v := range f.imported {
		m[k] = v
	}
	return m, nil
}
func (f *fakeTx) SetSpoolImported(m map[string]string) error { f.imported = m; return nil }
func (f *fakeTx) AppendEvent(e records.Event) error          { f.events = append(f.events, e); return nil }

func TestImport(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		raw     string // appended to the live file after the denials
		denials int
		subject []string // the events' subjects, in order
		message string   // the last event's message
	}{
		{"denials", "", 2, []string{"d-0", "d-1"}, "no"},
		{"an unreadable line is kept", "not json\n", 1, []string{"d-0", "?:2"}, "denial spool: an unreadable line kept as written"},
		{"a torn line is kept", `{"goal": "g1"`, 1, []string{"d-0", "?:2"}, "denial spool: a torn line (the hook stopped while writing it) kept as written"},
		{"a blank line is skipped", "\n", 1, []string{"d-0"}, "no"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), hosts.SpoolDir)
			for i := range tc.denials {
				if err := hosts.AppendDenial(dir, hosts.Denial{Goal: "g1", Agent: "a1", DecisionID: "d-" + string(rune('0'+i)), Verdict: "deny", Message: "no", At: at, Codes: []string{"c"}}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.raw != "" {
				f, err := os.OpenFile(filepath.Join(dir, hosts.SpoolFile), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(tc.raw)
				f.Close()
			}
			tx := &fakeTx{}
			files, err := Import(tx, dir)
			if err != nil || len(files) != 1 {
				t.Fatalf("files %v, %v", files, err)
			}
			var subjects []string
			for _, e := range tx.events {
				if e.Kind != "permission.denied" {
					t.Fatalf("%+v", e)
				}
				s := e.Subject
				if _, raw := e.Data["raw"]; raw {
					if e.Actor != UnverifiedActor {
						t.Fatalf("a line kept as written is %q's, want %q", e.Actor, UnverifiedActor)
					}
					s = "?" + s[len(s)-2:]
				}
				subjects = append(subjects, s)
			}
			if !slices.Equal(subjects, tc.subject) || tx.events[len(tx.events)-1].Message != tc.message || len(tx.imported) != 1 {
				t.Fatalf("subjects %v, last %+v, imported %v", subjects, tx.events[len(tx.events)-1], tx.imported)
			}
			// A crash after the commit, before the segment was deleted: the
			// segment is deleted again, never imported twice.
			again := &fakeTx{imported: tx.imported}
			if files, err := Import(again, dir); err != nil || len(files) != 1 || len(again.events) != 0 {
				t.Fatalf("again: files %v events %v %v", files, again.events, err)
			}
			for _, f := range files {
				os.Remove(f)
			}
			if files, err := Import(&fakeTx{}, dir); err != nil || len(files) != 0 {
				t.Fatalf("after deleting: %v %v", files, err)
			}
		})
	}
	if files, err := Import(&fakeTx{}, filepath.Join(t.TempDir(), "none")); err != nil || files != nil {
		t.Fatalf("no spool: %v %v", files, err)
	}
}

func TestDenialEvent(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 0, 5, time.UTC)
	e := DenialEvent(hosts.Denial{Goal: "g1", Agent: "a1", DecisionID: "d1", Tool: "Bash", Action: "exec", Verdict: "deny", Message: "no", At: at, Codes: []string{"c"}})
	if e.Kind != "permission.denied" || e.Goal != "g1" || e.Actor != "a1" || e.Subject != "d1" || e.Data["denied_at"] != "2026-11-30T10:00:00.000000005Z" || e.Data["tool"] != "Bash" {
		t.Fatalf("%+v", e)
	}
}

// A spooled line can be forged by an agent (the spool is in the work tree):
// it never records an event as a human's or loopx's.
func TestDenialEvent_ReservedActors(t *testing.T) {
	for _, c := range []struct{ agent, actor string }{
		{"a1", "a1"}, {"human", UnverifiedActor}, {"Human ", UnverifiedActor}, {"loopx", UnverifiedActor},
		{"", UnverifiedActor}, {"human:alice", UnverifiedActor}, {"dashboard", UnverifiedActor},
	} {
		e := DenialEvent(hosts.Denial{Goal: "g1", Agent: c.agent, DecisionID: "d1", Verdict: "deny"})
		if e.Actor != c.actor {
			t.Errorf("agent %q: actor %q, want %q", c.agent, e.Actor, c.actor)
		}
		if c.actor == UnverifiedActor && e.Data["claimed_actor"] != c.agent {
			t.Errorf("agent %q: claimed_actor %v", c.agent, e.Data["claimed_actor"])
		}
	}
}

// TestImport_Bounded: a forged spool of 50 MB (one 20 MB line, then short
// denials) is imported a bounded batch at a time, reading it as a stream:
// each import appends at most Limits.Lines events plus one that counts what
// is left, allocates far less than the file, and the next import goes on
// where the last stopped (the line bound is exact; the time bound, which
// a loaded machine may reach first, is never asserted).
func TestImport_Bounded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), hosts.SpoolDir)
	if err := hosts.AppendDenial(dir, hosts.Denial{Goal: "g1", Agent: "a1", DecisionID: "first", Verdict: "deny"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, hosts.SpoolFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	huge := bytes.Repeat([]byte("x"), 20<<20)
	f.Write(append(huge, '\n'))
	line := []byte(`{"goal":"g1","agent":"human","decision_id":"forged","verdict":"deny","message":"` + strings.Repeat("p", 100) + `"}` + "\n")
	f.Write(bytes.Repeat(line, (30<<20)/len(line)))
	f.Close()

	tx := &fakeTx{}
	importFlat(t, tx, dir)
	// the denial, the long line (the byte budget is spent), what is left
	if len(tx.events) != 3 || tx.events[0].Subject != "first" || !strings.Contains(tx.events[1].Message, "longer than a hook writes") || tx.events[2].Kind != "permission.spool_deferred" {
		t.Fatalf("%d events: %+v", len(tx.events), tx.events[:min(3, len(tx.events))])
	}
	// The rest of the long line comes in pieces of at most Limits.Bytes,
	// one import each; then the forged lines, Limits.Lines an import.
	imported := tx.imported
	for i := 0; ; i++ {
		next := &fakeTx{imported: imported}
		if _, err := Import(next, dir); err != nil {
			t.Fatal(err)
		}
		imported = next.imported
		n := len(next.events)
		if n > Limits.Lines+1 || next.events[n-1].Kind != "permission.spool_deferred" || i > 25 {
			t.Fatalf("import %d: %d events, last %+v", i, n, next.events[n-1])
		}
		if next.events[0].Actor == UnverifiedActor { // a forged line: never a human's
			break
		}
	}
}

// TestImport_GoesOnWhereItStopped: a spool longer than one import's line
// bound is imported over several imports, every line exactly once, in
// order, and the segment is returned for deletion once read to its end.
func TestImport_GoesOnWhereItStopped(t *testing.T) {
	defer func(n int) { Limits.Lines = n }(Limits.Lines)
	Limits.Lines = 2
	dir := filepath.Join(t.TempDir(), hosts.SpoolDir)
	for i := range 5 {
		if err := hosts.AppendDenial(dir, hosts.Denial{Goal: "g1", Agent: "a1", DecisionID: "d-" + strconv.Itoa(i), Verdict: "deny"}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	imported := map[string]string{}
	for range 3 {
		tx := &fakeTx{imported: imported}
		files, err := Import(tx, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tx.events {
			if e.Kind == "permission.denied" {
				got = append(got, e.Subject)
			}
		}
		imported = tx.imported
		if len(got) == 5 && len(files) != 1 {
			t.Fatalf("read to its end, but files %v", files)
		}
	}
	if !slices.Equal(got, []string{"d-0", "d-1", "d-2", "d-3", "d-4"}) {
		t.Fatalf("imported %v", got)
	}
}

// importFlat runs one Import of the spool in dir into tx: it must leave
// the spool unfinished and allocate under 16 MiB, whatever the spool holds.
func importFlat(t *testing.T, tx *fakeTx, dir string) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	files, err := Import(tx, dir)
	runtime.ReadMemStats(&after)
	if err != nil || len(files) != 0 {
		t.Fatalf("files %v, %v", files, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Fatalf("one import allocated %d bytes", alloc)
	}
}

// TestImport_1GB is TestImport_Bounded's first import on a forged spool
// of 1 GB of short lines; too heavy for go test, it runs when
// LOOPX_SPOOL_1GB=1 (a step of .ci/run).
func TestImport_1GB(t *testing.T) {
	if os.Getenv("LOOPX_SPOOL_1GB") != "1" {
		t.Skip("set LOOPX_SPOOL_1GB=1 (a .ci/run step)")
	}
	dir := filepath.Join(t.TempDir(), hosts.SpoolDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, hosts.SpoolFile))
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(`{"goal":"g1","agent":"human","decision_id":"forged","verdict":"deny","message":"` + strings.Repeat("p", 100) + `"}` + "\n")
	chunk := bytes.Repeat(line, (8<<20)/len(line))
	for range (1 << 30) / len(chunk) {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	start := time.Now()
	tx := &fakeTx{}
	importFlat(t, tx, dir)
	if n := len(tx.events); n > Limits.Lines+1 || tx.events[n-1].Kind != "permission.spool_deferred" || tx.events[0].Actor != UnverifiedActor {
		t.Fatalf("%d events", n)
	}
	t.Logf("one import of a 1 GB spool: %d events in %s", len(tx.events), time.Since(start))
}
