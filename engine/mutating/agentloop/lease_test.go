package agentloop

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestPrunePrompts_KeepsTheNewest(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 5; i++ {
		p := filepath.Join(dir, fmt.Sprintf("r-%d.md", i))
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 11, 29, 10, i, 0, 0, time.UTC)
		_ = os.Chtimes(p, at, at)
	}
	prunePrompts(dir, 2)
	left, _ := os.ReadDir(dir)
	if len(left) != 2 || left[0].Name() != "r-3.md" || left[1].Name() != "r-4.md" {
		t.Fatalf("left %v", left)
	}
}

// TestPrunePrompts_LinkedRoundsDirectoryIsLeftAlone: when .loopx/rounds is
// a link to a directory of the user's, the prune removes nothing there.
func TestPrunePrompts_LinkedRoundsDirectoryIsLeftAlone(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	for i := 0; i < 5; i++ {
		if err := os.WriteFile(filepath.Join(outside, fmt.Sprintf("notes-%d.md", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".loopx"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, ".loopx", "rounds")
	if err := os.Symlink(outside, dir); err != nil {
		t.Fatal(err)
	}
	prunePrompts(dir, 2)
	if left, _ := os.ReadDir(outside); len(left) != 5 {
		t.Fatalf("the prune removed the user's files: %v left", left)
	}
}
