//go:build unix

package pathfacts

import (
	"os"
	"syscall"
)

// linkCount is the number of hard links of the file fi describes (1 when
// the system does not say).
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
