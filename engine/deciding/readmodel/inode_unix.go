//go:build unix

package readmodel

import (
	"io/fs"
	"syscall"
)

// inode is fi's inode number (0 when the file system gives none).
func inode(fi fs.FileInfo) uint64 {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}
