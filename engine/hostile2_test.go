package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPermission_HostileTrial2 decides the misses of the second hostile
// trial (notes/hostile-trial-2.md) under broadGrantSpec, in a project with
// loopx/, a symlink lnk to loopx/ and a symlink lnkcue to loopx/loopx.cue:
// none is allowed; each row names the verdicts it may get.
func TestPermission_HostileTrial2(t *testing.T) {
	e, _ := newEngine(t, broadGrantSpec)
	root := e.Root()
	for _, d := range []string{"loopx", "src", "d"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "loopx", "loopx.cue"), []byte("x: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"lnk": "loopx", "lnkcue": "loopx/loopx.cue"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	for _, tc := range []struct{ kind, line, verdict string }{
		// (1) relative symlink targets and copied symlinks
		{"symlink", `mkdir -p d && ln -s ../loopx d/l && echo x > d/l/loopx.cue`, "deny"},
		{"symlink", `ln -s ../loopx src/up && echo x > src/up/a.cue`, "deny"},
		{"symlink", `ln -sf ../loopx/loopx.cue src/c`, "deny"},
		{"symlink", `ln -s -t src ../loopx`, "deny"},
		{"symlink", `cp -P lnk l3 && echo x > l3/a.cue`, "deny"},
		{"symlink", `cp -d lnkcue l5 && echo x > l5`, "deny"},
		{"symlink", `cp -a lnk l6`, "deny"},
		{"symlink", `cp --preserve=links lnkcue l7`, "deny"},
		{"symlink", `ln -s ../shared web/shared`, "allow"},
	} {
		d := permission(t, e, "claude", PermissionInput{Tool: "Bash", Command: tc.line})
		if !slices.Contains(strings.Split(tc.verdict, "|"), d.Verdict) {
			t.Errorf("%s %q: %s %+v, want %s", tc.kind, tc.line, d.Verdict, d.Reasons, tc.verdict)
		}
	}
}
