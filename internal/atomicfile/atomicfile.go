// Package atomicfile writes a file so that a reader sees either its old
// content or its new content, never a partial one.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to a temp file beside path (".<base>.*.tmp", mode
// 0600) and renames it over path. Errors: the temp file's creation, write,
// close or rename (the temp file is removed then; path is unchanged).
func Write(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
