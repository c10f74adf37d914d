package rulebook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/policies"
)

// TestParse_RefusesWhatNoQueryReads: a policy's package must be under
// loopx.user.<query> (or .lib); a typo is policy_unreachable with a hint
// (loopx.user.shouldrun), a package outside loopx.user is policy_error, a file that
// does not parse is policy_error at its position; a test (_test.rego)
// may use any package outside loopx.
func TestParse_RefusesWhatNoQueryReads(t *testing.T) {
	for _, tc := range []struct {
		name, path, src string
		code, want      string
		row             int
	}{
		{"query package", "loopx/policies/a.rego", "package loopx.user.should_run\n", "", "", 0},
		{"library", "loopx/policies/a.rego", "package loopx.user.lib.x\n", "", "", 0},
		{"a test in its own package", "loopx/policies/a_test.rego", "package mytests\n", "", "", 0},
		{"a test inside loopx", "loopx/policies/a_test.rego", "package loopx.run_test\n", "policy_error", "must declare a package under", 1},
		{"typo", "loopx/policies/a.rego", "\npackage loopx.user.shouldrun\n", "policy_unreachable", "did you mean loopx.user.should_run?", 2},
		{"outside loopx.user", "loopx/policies/a.rego", "package loopx.run\n", "policy_error", "must declare a package under loopx.user.", 1},
		{"syntax", "loopx/policies/a.rego", "package loopx.user.permission\n\ndeny contains if {\n", "policy_error", "", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mods, err := Parse(map[string]string{tc.path: tc.src})
			if tc.code == "" {
				if err != nil || len(mods) != 1 || mods[0].Package == "" || mods[0].Test != strings.HasSuffix(tc.path, "_test.rego") {
					t.Fatalf("mods %+v, err %v", mods, err)
				}
				return
			}
			pe := AsError(err)
			if pe == nil || pe.Kind != errs.Input || pe.Code != tc.code || pe.Location.File != tc.path || pe.Location.Line != tc.row || !strings.Contains(pe.Message, tc.want) {
				t.Fatalf("err %#v, want %s at %s:%d containing %q", err, tc.code, tc.path, tc.row, tc.want)
			}
		})
	}
}

// TestBook_LoadWalksTheDirSortedAndHashesPoliciesOnly: Load reads every
// .rego under Dir (no dot files), sorted, paths relative to Root; the
// policy revision changes with a policy and not with a test; no Dir is
// no policies.
func TestBook_LoadWalksTheDirSortedAndHashesPoliciesOnly(t *testing.T) {
	root := t.TempDir()
	b := Book{Root: root, Dir: filepath.Join(root, "loopx", DirName)}
	if mods, err := b.Load(); err != nil || len(mods) != 0 || Hash(mods) != policies.Hash() {
		t.Fatalf("no dir: %v %v", mods, err)
	}
	write := func(rel, src string) {
		p := filepath.Join(b.Dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("z.rego", "package loopx.user.permission\n")
	write("sub/a.rego", "package loopx.user.claim\n")
	write("a_test.rego", "package mytests\n") // a test may use any package outside loopx
	write(".hidden.rego", "not rego")
	write("notes.md", "not rego")
	mods, err := b.Load()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range mods {
		got = append(got, m.Path)
	}
	if strings.Join(got, " ") != "loopx/policies/a_test.rego loopx/policies/sub/a.rego loopx/policies/z.rego" || !mods[0].Test || mods[1].Package != "loopx.user.claim" {
		t.Fatalf("loaded %+v", mods)
	}
	h := Hash(mods)
	write("a_test.rego", "package mytests\n\ntest_x if true\n")
	mods2, _ := b.Load()
	if Hash(mods2) != h {
		t.Fatal("a test changed the policy revision")
	}
	write("z.rego", "package loopx.user.permission\n\ndeny contains \"x\" if false\n")
	mods3, _ := b.Load()
	if Hash(mods3) == h || !strings.HasPrefix(h, "sha256:") {
		t.Fatalf("a policy edit kept the revision %s", h)
	}
}
