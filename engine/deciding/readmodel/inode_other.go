//go:build !unix

package readmodel

import "io/fs"

// inode is 0 where the platform has no inode numbers: the stamp's size,
// mtime and ends still tell versions of state.db apart.
func inode(fs.FileInfo) uint64 { return 0 }
