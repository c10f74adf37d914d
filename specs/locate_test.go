package specs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLocator_FindsDeclaredFieldsAndNearestParents(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "loopx")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "project: name: \"x\"\ngoals: g1: {\n\tobjective: \"Ship it\"\n\tagents: [\"a1\", \"a2\"]\n\tquota: rounds: 3\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "loopx.cue"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := NewLocator(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  []string
		want  Position
		exact bool
	}{
		{[]string{"goals", "g1", "quota", "rounds"}, Position{"loopx/loopx.cue", 5, 9}, true},
		{[]string{"goals", "g1", "agents", "1"}, Position{"loopx/loopx.cue", 4, 17}, true},
		{[]string{"goals", "g1", "quota", "window"}, Position{"loopx/loopx.cue", 5, 2}, false},
		{[]string{"goals", "g1", "gates", "merge", "question"}, Position{"loopx/loopx.cue", 2, 8}, false},
		{[]string{"agents", "a9"}, Position{"loopx/loopx.cue", 1, 1}, false},
	} {
		got, exact := l.Find(tc.path)
		if got != tc.want || exact != tc.exact {
			t.Errorf("Find(%v) = %v %v, want %v %v", tc.path, got, exact, tc.want, tc.exact)
		}
	}
	if _, err := NewLocator(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("no spec dir: no error")
	}
}
