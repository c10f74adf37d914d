// Package cursor is the Cursor host: an agent host whose hooks loopx does
// not answer; its agent program counts in a caller's ancestry.
package cursor

import "github.com/loopx-dev/loopx/engine/hosts"

// Adapter is Cursor's hosts.Adapter.
type Adapter struct{ hosts.NoHooks }

// Name is "cursor".
func (Adapter) Name() string { return "cursor" }

// Programs are Cursor's command-line agent's.
func (Adapter) Programs() []string { return []string{"cursor-agent"} }
