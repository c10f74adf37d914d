// Package gchold holds garbage collection while loopx's packages
// initialise: their initialisation allocates past the runtime's first
// goal of 4 MB and keeps what it allocates, so every loopx process
// collected once before main, for nothing. cli.Main restores the default
// first thing, then paces its command.
//
// It is a package of its own, imported by main, not part of
// cmd/loopx/internal/early: importing runtime/debug makes a package wait
// for it, which Go initialises late (its import path sorts after most
// dependencies'), and early must run before the heavy packages to
// forward a command to a running server cheaply.
package gchold

import (
	"os"
	"path"
	"runtime/debug"
)

// InitHeap is the heap, in bytes, up to which the program's packages
// initialise without collecting garbage (HoldCollection).
const InitHeap = 64 << 20

func init() {
	// Only a program named loopx: a test binary runs other commands as
	// itself under their own names, and never reaches cli.Main.
	if len(os.Args) > 0 && path.Base(os.Args[0]) == "loopx" {
		HoldCollection()
	}
}

// HoldCollection stops garbage collection while the packages after this
// one initialise, unless GOGC or GOMEMLIMIT is set (whoever runs loopx
// chose). InitHeap's memory limit bounds a process that would never
// restore the pace.
func HoldCollection() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(InitHeap)
	}
}
