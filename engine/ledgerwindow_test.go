package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/claimorder"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/kernel"
)

// TestReadModel_KeepsTheWidestWindowsLedger: the read model keeps the
// ledger entries of twice the widest quota window only (not a month of
// charges for a 24-hour window), decides from them what the store
// decides, and a decision under a wider window adopted since, or with the
// clock moved back by more than a window, reads the store and counts
// every charge of its window.
func TestReadModel_KeepsTheWidestWindowsLedger(t *testing.T) {
	root := benchProject(t, 10, 0)
	addFinishedRounds(t, root, 300) // a month of charges, ten a day
	ctx := context.Background()
	used := func(e *Engine) (int64, bool) {
		t.Helper()
		d, err := e.Decide(ctx, Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"})
		if err != nil || d.Quota == nil {
			t.Fatalf("%v %+v", err, d)
		}
		return d.Quota.Rounds.Used, e.sess.store == nil
	}
	e := New(Options{Root: root})
	fromStore, _ := used(e)
	path := e.sess.readModelPath()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = New(Options{Root: root})
	fromModel, byModel := used(e)
	e.Close()
	if !byModel || fromModel != fromStore || fromStore < 5 || fromStore > 15 {
		t.Fatalf("24h window: %d rounds used from the read model (read it: %v), %d from the store", fromModel, byModel, fromStore)
	}
	rm := readmodel.Load(path, filepath.Join(root, scaffold.StateDirName, kernel.DBFile), claimorder.Order().Bundle, time.Now())
	if rm == nil {
		t.Fatal("no read model")
	}
	if n := len(rm.Goals["g1"].Ledger); n > 25 {
		t.Errorf("the read model keeps %d ledger entries for a 24h window (twice that: a clock moved back by less still reads it)", n)
	}

	// The clock moved back two days: the model keeps only part of that window;
	// the store counts every charge after the window's start (three
	// days' worth, the later ones included, as it always has).
	back := time.Now().Add(-48 * time.Hour)
	e = New(Options{Root: root, Now: func() time.Time { return back }})
	n, byModel := used(e)
	e.Close()
	if byModel || n < 25 || n > 35 {
		t.Errorf("clock two days back: %d rounds used (read model: %v)", n, byModel)
	}

	// A wider window: 30 days.
	spec := filepath.Join(root, scaffold.SpecDirName, "loopx.cue")
	b, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, []byte(strings.Replace(string(b), `window: "24h"`, `window: "720h"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	e = New(Options{Root: root})
	n, _ = used(e)
	e.Close()
	if n != 300 {
		t.Errorf("720h window: %d rounds used, want 300", n)
	}
	// Its refresh keeps the wider window, and decisions read it again.
	e = New(Options{Root: root})
	n, byModel = used(e)
	e.Close()
	if n != 300 || !byModel {
		t.Errorf("720h window after a refresh: %d rounds used (read model: %v), want 300 from it", n, byModel)
	}
}
