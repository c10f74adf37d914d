//go:build unix

package agentloop

import (
	"os/exec"
	"syscall"
)

// ownGroup gives the agent command a process group of its own, stopped
// whole (SIGTERM) when its context ends: an agent's children must not keep
// working after its round was recorded.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
}

// killGroup kills what is left of the command's group (members that
// ignored SIGTERM or outlived their leader).
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
