// Package shell is the shell host: an agent that is a script or a command
// `loopx run` starts. It has no hooks and no program of its own (a round's
// runner identifies it).
package shell

import "github.com/loopx-dev/loopx/engine/hosts"

// Name is the host's name (agents.<a>.host), the default of `loopx init`
// and `loopx agent register`.
const Name = "shell"

// Adapter is the shell's hosts.Adapter.
type Adapter struct{ hosts.NoHooks }

// Name is "shell".
func (Adapter) Name() string { return Name }

// Programs are none.
func (Adapter) Programs() []string { return nil }
