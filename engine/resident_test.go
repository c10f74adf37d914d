package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/todos"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// residentEngine is an engine over r for the project e was built on.
func residentEngine(e *Engine, r *Resident, now func() time.Time) *Engine {
	return New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: now, Resident: r})
}

// TestResident_HoldsTheLockForItsLifeAndSharesTheStore: engines over one
// Resident see each other's commits with the store kept open, while a
// process without it cannot open the store until the Resident is closed.
func TestResident_HoldsTheLockForItsLifeAndSharesTheStore(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "before")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenResident(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	a := residentEngine(e, r, c.Now)
	addTodos(t, a, "through a")
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b := residentEngine(e, r, c.Now)
	// The chain is read from the files under the lock the Resident keeps
	// (doctor through a server), not by waiting for it.
	if rep, err := b.VerifyChain(); err != nil || rep.Problem != "" {
		t.Fatalf("VerifyChain over a Resident: %+v %v", rep, err)
	}
	ts, err := b.Todos("g1", "")
	if err != nil || len(ts) != 2 {
		t.Fatalf("b sees %d todos (%v), want 2", len(ts), err)
	}
	st := b.sess.Held()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if r.store != st || st == nil {
		t.Fatal("the store was not kept open across the engines' sessions")
	}

	outside := New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now, LockTimeout: 50 * time.Millisecond})
	if _, err := outside.Store(); !errors.Is(err, kernel.ErrLockTimeout) {
		t.Fatalf("a process without the Resident opened the store: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := residentEngine(e, r, c.Now).Store(); !errors.Is(err, ErrResidentClosed) {
		t.Fatalf("a closed Resident gave a store: %v", err)
	}
	ts, err = outside.Todos("g1", "")
	if err != nil || len(ts) != 2 {
		t.Fatalf("after Close: %d todos (%v)", len(ts), err)
	}
	outside.Close()
}

// TestResident_AForgedReadModelChangesNoDecision: a read model rewritten
// with its checksums recomputed (the goal shown paused) is believed by a
// process reading the file, and changes nothing while a Resident holds
// the store: its decisions come from the store in memory.
func TestResident_AForgedReadModelChangesNoDecision(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "work")
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	path := e.sess.readModelPath()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	core, rest, _ := bytes.Cut(raw, []byte("\n"))
	doc := core[:bytes.LastIndexByte(core, ' ')]
	forged := bytes.Replace(doc, []byte(`"status":"active"`), []byte(`"status":"paused"`), 1)
	if bytes.Equal(forged, doc) {
		t.Fatalf("no active goal in the read model's first line: %s", doc)
	}
	h := sha256.Sum256(forged)
	out := append(append(append(forged, ' '), hex.EncodeToString(h[:])...), '\n')
	if err := os.WriteFile(path, append(out, rest...), 0o600); err != nil {
		t.Fatal(err)
	}

	if d := decide(t, New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now}), "a1"); d.Verdict != "skip" {
		t.Fatalf("the forged read model was not believed without a Resident (%s %+v): the test forges nothing", d.Verdict, d.Reasons)
	}
	r, err := OpenResident(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f := residentEngine(e, r, c.Now)
	defer f.Close()
	if d := decide(t, f, "a1"); d.Verdict != "run" {
		t.Fatalf("with a Resident: %s %+v, want run", d.Verdict, d.Reasons)
	}
}

// TestResident_EnginesShareThePreparedQueries: engines built over one
// Resident compile the policy once while loopx/ is unchanged, and
// prepare anew once it changes.
func TestResident_EnginesShareThePreparedQueries(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "work")
	e.Close()
	r, err := OpenResident(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a := residentEngine(e, r, c.Now)
	decide(t, a, "a1")
	a.Close()
	b := residentEngine(e, r, c.Now)
	if b.rules.prep != a.rules.prep {
		t.Fatal("a second engine over the Resident prepares its queries again")
	}
	b.Close()
	// A tightening (fewer rounds) is adopted by the next command; the
	// engine after it evaluates the new spec with queries of its own.
	writeSpec(t, e.Root(), strings.Replace(testSpec, "rounds: 3", "rounds: 2", 1))
	f := residentEngine(e, r, c.Now)
	if err := f.AdoptTightening(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	g := residentEngine(e, r, c.Now)
	defer g.Close()
	if g.rules.prep == a.rules.prep {
		t.Fatal("an engine over the adopted, edited spec uses the queries prepared for the old one")
	}
	if d := decide(t, g, "a1"); d.Quota == nil || d.Quota.Rounds.Limit == nil || *d.Quota.Rounds.Limit != 2 {
		t.Fatalf("after the adoption: quota %+v", d.Quota)
	}
}

// TestResident_DecisionsFollowEveryCommit: a decision over a Resident
// reads the read model it keeps in memory, never stale: a commit by
// another engine (the goal paused, then resumed; a todo added) is in the
// next decision, which opens nothing.
func TestResident_DecisionsFollowEveryCommit(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "work")
	e.Close()
	r, err := OpenResident(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ask := func(want string) {
		t.Helper()
		d := residentEngine(e, r, c.Now)
		defer d.Close()
		if got := decide(t, d, "a1"); got.Verdict != want {
			t.Fatalf("verdict %s %+v, want %s", got.Verdict, got.Reasons, want)
		}
		if d.sess.store != nil {
			t.Fatal("the decision opened the store: the Resident kept no read model")
		}
	}
	w := residentEngine(e, r, c.Now)
	if _, err := w.SetGoalStatus("g1", records.GoalPaused, "test", "human"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ask("skip")
	w = residentEngine(e, r, c.Now)
	if _, err := w.SetGoalStatus("g1", records.GoalActive, "test", "human"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ask("run")
}

// TestResident_ConcurrentSessions: engines over one Resident in several
// goroutines (decisions and writes at once, as a server's requests run)
// share it safely (run with -race).
func TestResident_ConcurrentSessions(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "work")
	e.Close()
	r, err := OpenResident(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var wg sync.WaitGroup
	errc := make(chan error, 64)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				d := residentEngine(e, r, c.Now)
				if _, err := d.Decide(context.Background(), Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"}); err != nil {
					errc <- err
				}
				d.Close()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for j := 0; j < 10; j++ {
			w := residentEngine(e, r, c.Now)
			if _, err := w.AddTodo(todos.Input{Goal: "g1", Title: "more", Priority: 2}); err != nil {
				errc <- err
			}
			w.Close()
		}
	}()
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	f := residentEngine(e, r, c.Now)
	defer f.Close()
	if ts, err := f.Todos("g1", ""); err != nil || len(ts) != 11 {
		t.Fatalf("%d todos (%v), want 11", len(ts), err)
	}
}

// TestResident_ShrinksOnlyWhenIdle: the kept store's file is looked at
// for a shrink only when no session runs and none ran within the idle
// time.
func TestResident_ShrinksOnlyWhenIdle(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenResident(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, tried, _ := r.ShrinkIfIdle(0); tried {
		t.Errorf("tried with no store open")
	}
	a := residentEngine(e, r, c.Now)
	addTodos(t, a, "one")
	if _, tried, _ := r.ShrinkIfIdle(0); tried {
		t.Errorf("tried while a session holds the store")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, tried, _ := r.ShrinkIfIdle(time.Hour); tried {
		t.Errorf("tried within the idle time")
	}
	rep, tried, err := r.ShrinkIfIdle(0)
	if !tried || err != nil || rep.Before == 0 || rep.Shrunk {
		t.Errorf("idle: tried %v, %+v, %v; want tried, a small file left as it is", tried, rep, err)
	}
}

// Admit lets as many requests in at once as it has slots (one per
// processor) and the next one in when one is released.
func TestResidentAdmit(t *testing.T) {
	r := &Resident{slots: make(chan struct{}, 2)}
	first, second := r.Admit(), r.Admit()
	third := make(chan func(), 1)
	go func() { third <- r.Admit() }()
	select {
	case <-third:
		t.Fatal("a third request was admitted while two slots were taken")
	case <-time.After(50 * time.Millisecond):
	}
	first()
	release := <-third // admitted once a slot is free
	second()
	release()
	if len(r.slots) != 0 {
		t.Fatalf("%d slots still taken after every release", len(r.slots))
	}
}
