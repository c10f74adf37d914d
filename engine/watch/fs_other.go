//go:build !linux

package watch

// remoteFS is not implemented outside Linux: it reports nothing.
func remoteFS(path string) string { return "" }
