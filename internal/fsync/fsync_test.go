package fsync

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// failing fails every flush of a file whose name ends in suffix.
type failing struct{ suffix string }

var errDisk = errors.New("injected: input/output error")

func (f failing) Sync(file *os.File) error {
	if filepath.Ext(file.Name()) == f.suffix || filepath.Base(file.Name()) == f.suffix {
		return errDisk
	}
	return OS{}.Sync(file)
}

func TestUse_FailsTheChosenFlushesAndRestores(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.db")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	restore := Use(failing{".db"})
	if err := File(f); !errors.Is(err, errDisk) {
		t.Fatalf("File = %v, want the injected error", err)
	}
	if err := FD(int(f.Fd()), p); !errors.Is(err, errDisk) {
		t.Fatalf("FD = %v, want the injected error", err)
	}
	if err := Dir(dir); err != nil {
		t.Fatalf("Dir = %v, want nil (not a .db)", err)
	}
	restore()
	if err := File(f); err != nil {
		t.Fatalf("after restore: %v", err)
	}
	// FD leaves the caller's descriptor open.
	if _, err := f.Stat(); err != nil {
		t.Fatalf("descriptor closed by FD: %v", err)
	}
}

func TestDir_MissingDirectoryIsAnError(t *testing.T) {
	if err := Dir(filepath.Join(t.TempDir(), "no")); err == nil {
		t.Fatal("flushed a missing directory")
	}
}
