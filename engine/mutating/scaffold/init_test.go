package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
)

func noAdopt(string, *kernel.Store) error { return nil }

func TestInit_BadFlagsAreUsageErrorsAndWriteNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		code string
	}{
		{"unknown preset", Options{Preset: "nope", Goal: "g", Objective: "o"}, "unknown_preset"},
		{"preset without goal", Options{Preset: "release"}, "preset_needs_goal"},
		{"goal without objective", Options{Goal: "g"}, "missing_objective"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.o.Dir = dir
			_, err := Init(tc.o, noAdopt)
			if e := errs.As(err); e == nil || e.Kind != errs.Usage || e.Code != tc.code {
				t.Fatalf("err %v, want usage %s", err, tc.code)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Fatalf("wrote %v", ents)
			}
		})
	}
}

func TestInit_AdoptsTheNewStoreAndIgnoresTheStateInGit(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "svc")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	var adopted []string
	res, err := Init(Options{Dir: sub}, func(root string, s *kernel.Store) error {
		adopted = append(adopted, root)
		return s.View(func(*kernel.Tx) error { return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || !res.GitIgnore || res.Root != sub || len(adopted) != 1 || adopted[0] != sub {
		t.Fatalf("result %+v, adopted %v", res, adopted)
	}
	ig, _ := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if string(ig) != "# loopx local state\nsvc/.loopx/\n" {
		t.Fatalf(".gitignore %q", ig)
	}
	// A second init keeps the spec and the .gitignore line; adopt's error
	// is Init's.
	boom := errors.New("boom")
	if _, err := Init(Options{Dir: sub}, func(string, *kernel.Store) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("second init: %v", err)
	}
	if ig2, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(ig2) != string(ig) {
		t.Fatalf(".gitignore changed: %q", ig2)
	}
}

func TestEnsureIgnored(t *testing.T) {
	for _, tc := range []struct {
		name, have, want string
		added            bool
	}{
		{"missing file", "", "# loopx local state\n.loopx/\n", true},
		{"no trailing newline", "bin", "bin\n# loopx local state\n.loopx/\n", true},
		{"already there", "x\n.loopx/\n", "x\n.loopx/\n", false},
		{"without the slash", ".loopx\n", ".loopx\n", false},
		{"anchored", "/.loopx/\n", "/.loopx/\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), ".gitignore")
			if tc.have != "" {
				if err := os.WriteFile(p, []byte(tc.have), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			added, err := ensureIgnored(p, ".loopx/")
			got, _ := os.ReadFile(p)
			if err != nil || added != tc.added || string(got) != tc.want {
				t.Fatalf("added %v, %v, file %q; want %v, %q", added, err, got, tc.added, tc.want)
			}
		})
	}
}
