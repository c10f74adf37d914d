// Package other is every other agent host: no hooks loopx answers, and the
// programs of well-known agents (aider, gemini, opencode, goose, amp) that
// count in a caller's ancestry.
package other

import "github.com/loopx-dev/loopx/engine/hosts"

// Adapter is the other hosts' hosts.Adapter.
type Adapter struct{ hosts.NoHooks }

// Name is "other".
func (Adapter) Name() string { return "other" }

// Programs are the well-known agents' that have no host of their own here.
func (Adapter) Programs() []string { return []string{"aider", "gemini", "opencode", "goose", "amp"} }
