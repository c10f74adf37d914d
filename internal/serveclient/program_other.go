//go:build !linux

package serveclient

// SameProgram is the Linux check of a server's program file; elsewhere
// there is no /proc to read it from, and it returns nil (the peer's pid
// and uid are still checked against the record).
func SameProgram(pid int) error { return nil }
