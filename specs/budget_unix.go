//go:build unix

package specs

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// limitAddressSpace sets RLIMIT_AS to the address space in use now plus
// extra bytes (Linux: /proc/self/statm; elsewhere only the soft limit).
func limitAddressSpace(extra int64) error {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return nil // not Linux: the soft limit and the timeout remain
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return errors.New("malformed /proc/self/statm")
	}
	pages, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return err
	}
	limit := uint64(pages*int64(os.Getpagesize()) + extra)
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit})
}
