//go:build !linux && !darwin

package broker

import (
	"errors"
	"net"
)

// errNoPeer: this system names no socket peer to the broker; it serves
// no one.
var errNoPeer = errors.New("the broker cannot name its caller on this system")

// peer fails: the system names no socket peer here.
func peer(*net.UnixConn) (pid, uid int, err error) { return 0, 0, errNoPeer }

// parentOf fails: no process table is read here.
func parentOf(int) (int, error) { return 0, errNoPeer }

// peerHandle names no process here (-1).
func peerHandle(*net.UnixConn, int) int { return -1 }

// handleAlive is true: nothing to ask.
func handleAlive(int) bool { return true }

// closeHandle does nothing.
func closeHandle(int) {}

// procStart is 0: no process table is read here.
func procStart(int) uint64 { return 0 }
