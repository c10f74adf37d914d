//go:build !linux

package watch

// remoteFS cannot tell a network file system apart outside Linux (it reads
// statfs magic numbers there), so it names none and no warning is given.
func remoteFS(path string) string { return "" }
