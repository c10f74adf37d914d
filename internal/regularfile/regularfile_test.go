package regularfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(write("target", "via link"), link); err != nil {
		t.Fatal(err)
	}
	fifoLink := filepath.Join(dir, "fifolink")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		path  string
		limit int64
		want  string
		err   error
	}{
		{"regular", write("a", "hello"), 5, "hello", nil},
		{"empty", write("e", ""), 0, "", nil},
		{"a link to a regular file is followed", link, 100, "via link", nil},
		{"over the limit", write("big", "123456"), 5, "", ErrTooLarge},
		{"a FIFO is refused without blocking", fifo, 100, "", ErrNotRegular},
		{"a link to a FIFO too", fifoLink, 100, "", ErrNotRegular},
		{"a directory", dir, 100, "", ErrNotRegular},
		{"a device that never ends", "/dev/zero", 100, "", ErrNotRegular},
		{"missing", filepath.Join(dir, "none"), 100, "", fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadFile(tc.path, tc.limit)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("ReadFile(%s) error = %v, want %v", tc.path, err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("ReadFile(%s) = %q, %v; want %q", tc.path, got, err, tc.want)
			}
		})
	}
}
