package engine

import (
	"path/filepath"

	"github.com/loopx-dev/loopx/engine/hosts"
)

// spoolDir is the state directory's denial spool (hosts.SpoolDir): hooks
// append denials there without the state lock; the engine imports them in
// its next write transaction (importPending).
func (e *Engine) spoolDir() string { return filepath.Join(e.StateDir(), hosts.SpoolDir) }

// importPending imports denials spooled since the last writer, if any, so
// that readers of the audit log (Events, Review) list them like every
// other event.
func (e *Engine) importPending() error {
	if !hosts.SpoolPending(e.spoolDir()) {
		return nil
	}
	return e.settle()
}
