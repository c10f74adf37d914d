package specs

import (
	"strings"
	"testing"
)

// TestWritableProblem: a project.sandbox.writable glob is refused when it
// names git's own files, loopx's spec or state, or loopx's state
// directory (named, below it, or inside a match); other globs, and those
// the schema refuses, pass here.
func TestWritableProblem(t *testing.T) {
	const home, root, state = "/h", "/h/src/app", "/h/.local/state/loopx"
	for _, tt := range []struct {
		glob, want string // want: a word of the problem, "" none
	}{
		{"~/.m2/**", ""},
		{"/opt/cache/*", ""},
		{"~/src/app/build/**", ""}, // inside the work tree: adds nothing
		{"build/**", ""},           // relative: the schema's error
		{"~/.local/share/**", ""},
		{"~/src/app/.git/hooks/**", "git's own files"},
		{"/srv/other/.git", "git's own files"},
		{"~/src/app/.loopx/**", "loopx's state (.loopx/)"},
		{"~/src/app/loopx/policies/*", "project's spec"},
		{"~/src/app/loopx", "project's spec"},
		{"~/.local/state/loopx/projects/**", "names loopx's state directory"},
		{"~/.local/state/**", "would make writable /h/.local/state,"},
		{"~/.local/*", "would make writable /h/.local/state,"},
		{"~/**", "would make writable /h,"},
		{"/**", "would make writable /,"},
	} {
		got := writableProblem(tt.glob, home, root, state)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("writableProblem(%q) = %q, want %q", tt.glob, got, tt.want)
		}
	}
}
