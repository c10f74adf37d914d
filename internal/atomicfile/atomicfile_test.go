package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite_ReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	for _, want := range []string{"one", "two"} {
		if err := Write(p, []byte(want)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left %v", ents)
	}
}

func TestWrite_MissingDirFailsAndChangesNothing(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "no", "f"), []byte("x")); err == nil {
		t.Fatal("wrote into a missing directory")
	}
}
