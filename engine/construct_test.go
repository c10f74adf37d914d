package engine

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/testproject"

	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// tree is every file and directory under a root, by slash path: a file's
// bytes, a directory's mode.
type tree map[string]string

func filesUnder(t *testing.T, roots ...string) tree {
	t.Helper()
	out := tree{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && p == root {
					return nil
				}
				return err
			}
			key := filepath.ToSlash(p)
			if d.IsDir() {
				out[key] = "dir"
				return nil
			}
			b, err := os.ReadFile(p)
			out[key] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// changed lists the paths whose bytes differ between a and b, or that only
// one of them holds.
func changed(a, b tree) []string {
	var out []string
	for p, v := range a {
		if w, ok := b[p]; !ok || !bytes.Equal([]byte(v), []byte(w)) {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}

// warmCache fills the spec cache for the files in root's loopx/, as any
// earlier command that read them did: a derived file keyed by the files'
// hash, which building an engine reads.
func warmCache(t *testing.T, root string) {
	t.Helper()
	stateDir := filepath.Join(root, scaffold.StateDirName)
	if _, err := specs.LoadCached(filepath.Join(root, scaffold.SpecDirName), filepath.Join(stateDir, "cache")); err != nil {
		t.Fatal(err)
	}
}

// TestNew_WritesNothing builds engines over a project whose files hold an
// edit that only tightens the adopted rules, and over a store that was
// just created (nothing adopted, the spec's todos not seeded): the store
// file, .loopx/ and the anchor directory stay byte for byte as they were,
// with the engine open and after Close. The tightening is pending until
// AdoptTightening adopts it, which writes.
func TestNew_WritesNothing(t *testing.T) {
	t.Parallel()
	t.Run("tightening on disk", func(t *testing.T) {
		root, c := adoptedProject(t)
		xdg := stateHome(root)
		writeSpec(t, root, strings.Replace(adoptBase, "rounds: 3", "rounds: 2", 1))
		warmCache(t, root)
		dirs := []string{filepath.Join(root, scaffold.StateDirName), xdg}
		before := filesUnder(t, dirs...)
		e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
		if diff := changed(before, filesUnder(t, dirs...)); len(diff) > 0 {
			t.Fatalf("New wrote %v", diff)
		}
		if p := e.Pending(); p == nil || !p.OnlyTightens {
			t.Fatalf("pending = %+v, want a change that only tightens", p)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if diff := changed(before, filesUnder(t, dirs...)); len(diff) > 0 {
			t.Fatalf("New and Close wrote %v", diff)
		}

		// The explicit step adopts it (and the snapshot sees that write).
		e = New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
		defer e.Close()
		if err := e.AdoptTightening(); err != nil {
			t.Fatal(err)
		}
		if p := e.Pending(); p != nil {
			t.Fatalf("pending after AdoptTightening = %+v", p)
		}
		var r records.Rules
		if err := e.view(func(tx *kernel.Tx) (err error) { r, _, err = tx.Rules(); return err }); err != nil {
			t.Fatal(err)
		}
		if r.SpecHash != e.rules.disk.Hash || r.By != "loopx" {
			t.Fatalf("adopted %s by %q, want the files' %s by loopx", r.SpecHash, r.By, e.rules.disk.Hash)
		}
		if diff := changed(before, filesUnder(t, dirs...)); len(diff) == 0 {
			t.Fatal("the snapshot did not see the adoption's write")
		}
	})

	t.Run("fresh store", func(t *testing.T) {
		p := newProject(t, strings.Replace(testSpec, "objective:", "todos: t1: title: \"Seeded from the spec\"\n\tobjective:", 1))
		root, xdg := p.Root, p.StateHome
		stateDir := filepath.Join(root, scaffold.StateDirName)
		adir, err := anchor.DirIn(xdg, root)
		if err != nil {
			t.Fatal(err)
		}
		s, err := kernel.Open(stateDir, kernel.Options{Now: p.Clock.Now, AnchorDir: adir})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		warmCache(t, root)
		dirs := []string{stateDir, xdg}
		before := filesUnder(t, dirs...)
		e := New(Options{Root: root, StateHome: stateHome(root), Now: testproject.NewClock().Now})
		if err := e.SpecErr(); err != nil {
			t.Fatal(err)
		}
		if diff := changed(before, filesUnder(t, dirs...)); len(diff) > 0 {
			t.Fatalf("New wrote %v", diff)
		}
		defer e.Close()

		// Deciding writes no state either (the decision log is its
		// record); seeding the spec's todos is the explicit step.
		db := filepath.Join(stateDir, kernel.DBFile)
		dbBefore := filesUnder(t, db)
		if d := decide(t, e, "a1"); d.Verdict == "run" {
			t.Fatalf("decided %s before the spec's todos were seeded", d.Verdict)
		}
		if diff := changed(dbBefore, filesUnder(t, db)); len(diff) > 0 {
			t.Fatalf("Decide wrote %v", diff)
		}
		e.SeedSpecTodos("g1")
		if d := decide(t, e, "a1"); d.Verdict != "run" || d.Todo == nil || d.Todo.Title != "Seeded from the spec" {
			t.Fatalf("after seeding: %s %+v", d.Verdict, d.Todo)
		}
	})
}
