package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// denials returns the permission.denied events in the store (read
// directly, without Events' own import).
func denials(t *testing.T, e *Engine) []records.Event {
	t.Helper()
	var out []records.Event
	if err := e.view(func(tx *kernel.Tx) error {
		return tx.Events(func(ev records.Event) bool {
			if ev.Kind == "permission.denied" {
				out = append(out, ev)
			}
			return true
		})
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func spoolFiles(t *testing.T, e *Engine) []string {
	t.Helper()
	entries, err := os.ReadDir(e.spoolDir())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, en := range entries {
		if en.Name() != hosts.SpoolLock {
			out = append(out, en.Name())
		}
	}
	return out
}

func spool(t *testing.T, e *Engine, n int, prefix string) {
	t.Helper()
	for i := range n {
		if err := hosts.AppendDenial(e.spoolDir(), hosts.Denial{Goal: "g1", Agent: "a1", DecisionID: fmt.Sprintf("%s-%d", prefix, i), Verdict: "deny",
			Message: "x: denied", Codes: []string{"protected_path"}, At: e.Now()}); err != nil {
			t.Fatal(err)
		}
	}
}

func noop(*kernel.Tx) error { return nil }

// TestSpool_DenialIsAuditedWithoutTheLock: a denied call is spooled, not
// written to the store (a hook never waits for the state lock to audit); the
// next writer imports it into a permission.denied event and empties the
// spool; `Events` imports pending lines itself.
func TestSpool_DenialIsAuditedWithoutTheLock(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	d, err := e.Permission(context.Background(), "g1", "a1", toolcall.Call{Tool: "Write", Paths: []string{"loopx/loopx.cue"}})
	if err != nil || d.Verdict != "deny" {
		t.Fatalf("%s %v", d.Verdict, err)
	}
	if got := denials(t, e); len(got) != 0 {
		t.Fatalf("the denial reached the store before any writer: %+v", got)
	}
	if got := spoolFiles(t, e); strings.Join(got, ",") != hosts.SpoolFile {
		t.Fatalf("spool = %v", got)
	}
	if err := e.update(noop); err != nil {
		t.Fatal(err)
	}
	got := denials(t, e)
	if len(got) != 1 || got[0].Goal != "g1" || got[0].Actor != "a1" || got[0].Subject != d.DecisionID ||
		!strings.HasPrefix(got[0].Message, "loopx/loopx.cue: loopx/loopx.cue is loopx's own") || got[0].Data["tool"] != "Write" {
		t.Fatalf("events = %+v", got)
	}
	if f := spoolFiles(t, e); len(f) != 0 {
		t.Fatalf("spool not emptied: %v", f)
	}
	// An ask is audited only when the host cannot ask (AskBlocks).
	e2, _ := newEngine(t, strings.Replace(testSpec, `stall: max_no_progress: 2`, `stall: max_no_progress: 2
	scope: commands: ask: ["git push*"]`, 1))
	for _, blocks := range []bool{false, true} {
		if d, _ := e2.Permission(context.Background(), "g1", "a1", toolcall.Call{Tool: "Bash", Command: "git push", AskBlocks: blocks}); d.Verdict != "ask" {
			t.Fatalf("verdict %s", d.Verdict)
		}
	}
	evs, err := e2.Events(reportdata.EventFilter{Kind: "permission"})
	if err != nil || len(evs) != 1 || evs[0].Data["verdict"] != "ask" {
		t.Fatalf("Events = %+v, %v", evs, err)
	}
}

// TestSpool_TornAndUnreadableLinesAreKept: a last line without its newline
// (a hook killed mid-write) and a line that does not decode are imported
// with their raw text, never dropped; the good lines around them too.
func TestSpool_TornAndUnreadableLinesAreKept(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	spool(t, e, 1, "a")
	f, err := os.OpenFile(filepath.Join(e.spoolDir(), hosts.SpoolFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("not json\n\n" + `{"goal":"g1","agent":"a1","decision_id":"torn`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := e.update(noop); err != nil {
		t.Fatal(err)
	}
	got := denials(t, e)
	if len(got) != 3 {
		t.Fatalf("%d events, want 3: %+v", len(got), got)
	}
	if got[0].Subject != "a-0" || got[1].Message != "denial spool: an unreadable line kept as written" || got[1].Data["raw"] != "not json" ||
		got[2].Message != "denial spool: a torn line (the hook stopped while writing it) kept as written" ||
		got[2].Data["raw"] != `{"goal":"g1","agent":"a1","decision_id":"torn` {
		t.Fatalf("events = %+v", got)
	}
}

// TestSpool_CrashAfterCommitNeverImportsTwice: the import committed, then
// the process died before deleting the segment; the next writer finds the
// segment with a name and hash the store records, and deletes it without
// importing it again. New lines spooled meanwhile are imported once.
func TestSpool_CrashAfterCommitNeverImportsTwice(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	spool(t, e, 2, "a")
	live := filepath.Join(e.spoolDir(), hosts.SpoolFile)
	data, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.update(noop); err != nil {
		t.Fatal(err)
	}
	// Put the imported segment back, as if the deletion never happened.
	seg := filepath.Join(e.spoolDir(), fmt.Sprintf("denials-%020d.importing", 1))
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	spool(t, e, 1, "b")
	if err := e.update(noop); err != nil {
		t.Fatal(err)
	}
	if err := e.update(noop); err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, ev := range denials(t, e) {
		subjects = append(subjects, ev.Subject)
	}
	if strings.Join(subjects, ",") != "a-0,a-1,b-0" {
		t.Fatalf("imported %v, want a-0,a-1,b-0 once each", subjects)
	}
	if f := spoolFiles(t, e); len(f) != 0 {
		t.Fatalf("spool not emptied: %v", f)
	}
}

// TestSpool_RolledBackWriterKeepsTheLines: a writer whose transaction fails
// (or a crash before its commit) imports nothing; the lines wait in their
// segment for the next writer.
func TestSpool_RolledBackWriterKeepsTheLines(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	spool(t, e, 2, "a")
	boom := errors.New("refused")
	if err := e.update(func(*kernel.Tx) error { return boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if got := denials(t, e); len(got) != 0 {
		t.Fatalf("a rolled-back writer imported %d lines", len(got))
	}
	spool(t, e, 1, "b")
	if err := e.update(noop); err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, ev := range denials(t, e) {
		subjects = append(subjects, ev.Subject)
	}
	if strings.Join(subjects, ",") != "a-0,a-1,b-0" {
		t.Fatalf("imported %v", subjects)
	}
}

// TestSpool_ConcurrentAppendersLoseNothing: appenders (each line under its
// own shared lock, as separate hook processes would) race an importer that
// writes again and again; every line is imported exactly once.
func TestSpool_ConcurrentAppendersLoseNothing(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	const writers, lines = 6, 40
	spool := e.spoolDir()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each line opens the spool and its lock anew, as a hook
			// process does (an engine per appender would only wait out
			// the importer's state lock: 30 s, then read nothing).
			for i := range lines {
				if err := hosts.AppendDenial(spool, hosts.Denial{Goal: "g1", Agent: "a1", DecisionID: fmt.Sprintf("w%d-%d", w, i), Verdict: "deny", Codes: []string{}}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	stop := make(chan struct{})
	imported := make(chan error, 1)
	go func() {
		for {
			if err := e.update(noop); err != nil {
				imported <- err
				return
			}
			select {
			case <-stop:
				imported <- nil
				return
			default:
			}
		}
	}()
	wg.Wait()
	close(stop)
	if err := <-imported; err != nil {
		t.Fatal(err)
	}
	if err := e.update(noop); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, ev := range denials(t, e) {
		seen[ev.Subject]++
	}
	if len(seen) != writers*lines {
		t.Fatalf("%d distinct denials imported, want %d", len(seen), writers*lines)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s imported %d times", id, n)
		}
	}
}

// TestSpool_ReviewListsSpooledDenials: the review packet imports pending
// denials before it reads the audit log, so a denial spooled since the last
// writer is in this packet (not hidden behind the review's own event).
func TestSpool_ReviewListsSpooledDenials(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	if d, _ := e.Permission(context.Background(), "g1", "a1", toolcall.Call{Tool: "Write", Paths: []string{".loopx/state.db"}}); d.Verdict != "deny" {
		t.Fatalf("verdict %s", d.Verdict)
	}
	rv, err := e.Review(reportdata.ReviewOptions{Goal: "g1"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range rv.Events {
		if ev.Kind == "permission.denied" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("review lists %d denials, want 1: %+v", n, rv.Events)
	}
}
