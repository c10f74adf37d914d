//go:build linux

package watch

import "syscall"

// remoteFS names the file system of path when it is one on which inotify
// does not see other machines' (or the host's) changes, "" otherwise.
func remoteFS(path string) string {
	var st syscall.Statfs_t
	if syscall.Statfs(path, &st) != nil {
		return ""
	}
	switch uint32(st.Type) {
	case 0x6969:
		return "NFS"
	case 0x517B, 0xFF534D42, 0xFE534D42:
		return "SMB/CIFS"
	case 0x65735546:
		return "FUSE"
	case 0x01021997:
		return "9P"
	}
	return ""
}
