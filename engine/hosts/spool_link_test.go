package hosts

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveSpool_LinkedSpoolIsLeftAlone: when .loopx/spool is a link to
// a directory of the user's, removing the imported segments removes
// nothing there.
func TestRemoveSpool_LinkedSpoolIsLeftAlone(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	seg := "denials-00000000000000000001.importing"
	if err := os.WriteFile(filepath.Join(outside, seg), []byte("the user's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".loopx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".loopx", SpoolDir)); err != nil {
		t.Fatal(err)
	}
	RemoveSpool([]string{filepath.Join(root, ".loopx", SpoolDir, seg)})
	if _, err := os.Stat(filepath.Join(outside, seg)); err != nil {
		t.Fatalf("removed the user's file: %v", err)
	}
}
