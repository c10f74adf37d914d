package readmodel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel"
)

// TestModel_UsedOnlyWhileItMatchesTheStore: a written model loads and
// reads like the store; a commit after it makes it stale (Load: nil); an
// edit outside loopx that claims the current stamp fails Verify and is
// removed.
func TestModel_UsedOnlyWhileItMatchesTheStore(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	s, err := kernel.Open(dir, kernel.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := func(title string) {
		if err := s.Update(func(tx *kernel.Tx) error {
			_, err := tx.AddTodo(kernel.Todo{Goal: "g1", Title: title})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	add("first")
	path := filepath.Join(dir, "cache", "readmodel.json")
	rm, b, err := Build(s, []string{"g1"})
	if err != nil || Write(path, b) != nil {
		t.Fatal(err)
	}
	got := Load(path, s.Path(), now)
	if got == nil || !got.Has("g1") || got.Has("g2") || got.Stamp != rm.Stamp || !got.Now().Equal(now) {
		t.Fatalf("loaded %+v", got)
	}
	if ts, _ := got.Todos("g1"); len(ts) != 1 || ts[0].Title != "first" {
		t.Fatalf("todos %+v", ts)
	}
	if g, _ := got.Goal("g9"); g.ID != "g9" || g.Status != kernel.GoalActive {
		t.Fatalf("a goal the model does not hold: %+v", g)
	}
	if ok, err := Verify(path, s, []string{"g1"}); !ok || err != nil {
		t.Fatalf("genuine model: %v %v", ok, err)
	}

	// An edit that keeps the stamp: Verify says no and removes the file.
	got.Goals["g1"].Todos[0].Title = "forged"
	forged, _ := json.Marshal(got)
	if err := os.WriteFile(path, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, err := Verify(path, s, []string{"g1"}); ok || err != nil {
		t.Fatalf("forged model: %v %v", ok, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("a forged model was kept")
	}

	// A commit after the write: the model no longer matches.
	if err := Write(path, b); err != nil {
		t.Fatal(err)
	}
	add("second")
	if Load(path, s.Path(), now) != nil {
		t.Fatal("a stale model loaded")
	}
}

// TestRefresh_WrittenAfterTheUnlockOnlyForTheContentItHolds: a model taken
// under the lock (Take) and written after it (WriteAfter) carries the stamp
// of the content it holds; when another process committed in between, it
// is not written, and should its rename land after that commit anyway, it
// never loads as current.
func TestRefresh_WrittenAfterTheUnlockOnlyForTheContentItHolds(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	opts := kernel.Options{Now: func() time.Time { return now }}
	path := filepath.Join(t.TempDir(), "readmodel.json")
	db := filepath.Join(dir, kernel.DBFile)
	// commit opens the store as one process does, adds a todo and takes
	// the refresh before it unlocks.
	commit := func(title string) Refresh {
		s, err := kernel.Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Update(func(tx *kernel.Tx) error {
			_, err := tx.AddTodo(kernel.Todo{Goal: "g1", Title: title})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return Take(s, path, []string{"g1"}, Stamp{})
	}
	titles := func() []string {
		rm := Load(path, db, now)
		if rm == nil {
			return nil
		}
		ts, _ := rm.Todos("g1")
		var out []string
		for _, td := range ts {
			out = append(out, td.Title)
		}
		return out
	}

	first := commit("first")
	st := first.WriteAfter(db, Stamp{})
	if got := titles(); len(got) != 1 || got[0] != "first" || st != first.stamp {
		t.Fatalf("after the first commit: %q (stamp %+v)", got, st)
	}

	// Another process commits between this one's unlock and its rename.
	stale := commit("second")
	third := commit("third")
	if st := stale.WriteAfter(db, first.stamp); st != first.stamp {
		t.Fatalf("a model of superseded content was written (stamp %+v)", st)
	}
	if got := titles(); got != nil {
		t.Fatalf("the model of the first commit loaded as current: %q", got)
	}
	third.WriteAfter(db, Stamp{})
	if got := titles(); len(got) != 3 {
		t.Fatalf("after the third commit: %q", got)
	}
	// The stale rename lands last anyway: the model does not load.
	if err := Write(path, stale.b); err != nil {
		t.Fatal(err)
	}
	if got := titles(); got != nil {
		t.Fatalf("a stale model loaded as current: %q", got)
	}
}
