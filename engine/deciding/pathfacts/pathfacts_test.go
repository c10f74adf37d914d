package pathfacts

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/input"
)

// TestOf: a path's facts relative to the project, through symlinks (in,
// out, dangling, looping), ".." and absolute paths.
func TestPathFacts(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	mkdir := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mkdir("api/v2")
	mkdir("loopx")
	mkdir("docs")
	symlink := func(target, link string) {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Skip("symlinks unsupported:", err)
		}
	}
	symlink(outside, "docs/out")                    // a directory link out of the project
	symlink("../loopx/loopx.cue", "docs/spec.cue")  // a dangling link into loopx/
	symlink("/nonexistent/dir/file", "docs/escape") // a dangling link out
	symlink("../api", "docs/api")                   // a link inside
	symlink("loop1", filepath.Join("docs", "loop2"))
	symlink("loop2", filepath.Join("docs", "loop1"))
	roots := Roots(root)
	for _, tc := range []struct {
		dir, in string
		want    input.PathFacts
	}{
		{root, "api/v2/x.go", input.PathFacts{Path: "api/v2/x.go", Resolved: "api/v2/x.go"}},
		{root, filepath.Join(root, "api", "v2", "new", "deep.go"), input.PathFacts{Path: "api/v2/new/deep.go", Resolved: "api/v2/new/deep.go"}},
		{root, "api/../loopx/loopx.cue", input.PathFacts{Path: "loopx/loopx.cue", Resolved: "loopx/loopx.cue"}},
		{filepath.Join(root, "api"), "../.loopx/state.db", input.PathFacts{Path: ".loopx/state.db", Resolved: ".loopx/state.db"}},
		{root, ".", input.PathFacts{Path: ".", Resolved: "."}},
		{root, "api/../../../.ssh/config", input.PathFacts{Path: filepath.ToSlash(filepath.Clean(filepath.Join(root, "../../.ssh/config"))), OutsideProject: true}},
		{root, "..", input.PathFacts{Path: filepath.ToSlash(filepath.Dir(root)), OutsideProject: true, ContainsProject: true}},
		{root, "/", input.PathFacts{Path: "/", OutsideProject: true, ContainsProject: true}},
		{root, "/etc/passwd", input.PathFacts{Path: "/etc/passwd", OutsideProject: true}},
		{root, "docs/out/x.md", input.PathFacts{Path: "docs/out/x.md", Resolved: "OUT/x.md", SymlinkOutside: true}},
		{root, "docs/spec.cue", input.PathFacts{Path: "docs/spec.cue", Resolved: "loopx/loopx.cue"}},
		{root, "docs/escape", input.PathFacts{Path: "docs/escape", Resolved: "/nonexistent/dir/file", SymlinkOutside: true}},
		{root, "docs/api/v2/x.go", input.PathFacts{Path: "docs/api/v2/x.go", Resolved: "api/v2/x.go"}},
		{root, "docs/loop1", input.PathFacts{Path: "docs/loop1", SymlinkOutside: true}},
	} {
		got := Of(roots, tc.dir, tc.in)
		want := tc.want
		if want.OutsideProject {
			want.Resolved = want.Path
		}
		realOut, _ := filepath.EvalSymlinks(outside)
		want.Resolved = strings.Replace(want.Resolved, "OUT", filepath.ToSlash(realOut), 1)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Of(%q, %q)\n got %+v\nwant %+v", tc.dir, tc.in, got, want)
		}
	}
}
