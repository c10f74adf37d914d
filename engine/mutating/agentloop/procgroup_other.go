//go:build !unix

package agentloop

import "os/exec"

// ownGroup leaves the agent command as exec starts it: without process
// groups (Windows, …) stopping loopx kills the command (exec's default
// Cancel), but not children it started in a group of their own.
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills the command if it still runs.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
