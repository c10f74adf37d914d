package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/claimorder"
	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/kernel"
)

// TestReadModel_WrittenAfterTheUnlockNeverReadStale: Release writes the
// read model after the unlock, stamped for the content it holds; when a
// model of older content lands after another process's commit (a rename
// late by a commit), decisions read the store, never the stale model, and
// the store's reader writes the current model again.
func TestReadModel_WrittenAfterTheUnlockNeverReadStale(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "first")
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	path := e.sess.readModelPath()
	db := filepath.Join(e.StateDir(), kernel.DBFile)
	stale, err := os.ReadFile(path)
	if err != nil || readmodel.Load(path, db, claimorder.Order().Bundle, c.Now()) == nil {
		t.Fatalf("no current read model after Release: %v", err)
	}

	f := New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now})
	addTodos(t, f, "second")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := readmodel.Write(path, stale); err != nil {
		t.Fatal(err)
	}

	g := New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now})
	defer g.Close()
	d := decide(t, g, "a1")
	if g.sess.store == nil {
		t.Fatal("the decision read the stale read model")
	}
	rev, err := g.sess.store.Revision()
	if err != nil || d.Revision.State != rev {
		t.Fatalf("decided at state revision %d, the store is at %d (%v)", d.Revision.State, rev, err)
	}
	if err := g.Release(); err != nil {
		t.Fatal(err)
	}
	rm := readmodel.Load(path, db, claimorder.Order().Bundle, c.Now())
	if rm == nil || rm.Revision() != rev {
		t.Fatalf("after the store's reader released it, the read model is %+v, want revision %d", rm, rev)
	}
	if ts, _ := rm.Todos("g1"); len(ts) != 2 {
		t.Fatalf("read model todos %+v", ts)
	}
}
