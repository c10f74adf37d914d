package trust

import (
	"io/fs"
	"syscall"
)

// keyOf is fi's statKey; ok is false when the file system gives no inode
// and change time (nothing is cached then).
func keyOf(fi fs.FileInfo) (statKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statKey{}, false
	}
	return statKey{dev: uint64(st.Dev), ino: st.Ino, size: fi.Size(), mode: fi.Mode(),
		mtimeNs: fi.ModTime().UnixNano(), ctimeNs: st.Ctim.Nano()}, true
}
