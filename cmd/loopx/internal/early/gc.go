package early

import (
	"os"
	"runtime/debug"
)

// InitHeap is the heap, in bytes, up to which the program's packages
// initialise without collecting garbage (HoldCollection).
const InitHeap = 64 << 20

// HoldCollection stops garbage collection while the packages after this
// one initialise, unless GOGC or GOMEMLIMIT is set (whoever runs loopx
// chose). Their initialisation allocates past the runtime's first goal of
// 4 MB, so every loopx process collected once before main, for nothing:
// the data is kept. InitHeap's memory limit bounds a process that would
// never restore the pace. cli.Main restores the default first thing and
// then paces its command.
func HoldCollection() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(InitHeap)
	}
}
