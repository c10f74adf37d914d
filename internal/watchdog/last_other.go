//go:build !(linux && amd64)

package watchdog

import "syscall"

// SupportsLast reports whether ArmLast leaves its Last on this system: not
// here (no handler is written for it); ArmLast is Arm.
const SupportsLast = false

const lastSignal = syscall.SIGALRM

func installLast(Last) error { return nil }
