package scaffold

import (
	"path/filepath"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/decisionlog"
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/kernel"
)

// LoopxWrites reports whether rel (slash, under .loopx/) is a file loopx
// itself writes while a round runs, which an agent's loopx commands change
// legitimately: the store, its lock, backup and revision marker (state.*,
// tamper-evident on their own: hash chain, anchor), the audit event log
// (events.log*: checksummed and chained, its head committed in the
// store), the decision log, its inputs and bundles (append-only,
// content-addressed), the denial spool, the round prompts and the read
// model (verified against the store by engine.VerifyReadModel). Everything else
// under .loopx/ (the spec cache, the installed-hooks record, the instance
// id, any file an agent adds) is compared by content.
func LoopxWrites(rel string) bool {
	r := strings.TrimPrefix(rel, StateDirName+"/")
	base := filepath.Base(r)
	switch {
	case !strings.Contains(r, "/") && (strings.HasPrefix(base, "state.") || strings.HasSuffix(base, ".lock") ||
		strings.HasPrefix(base, decisionlog.FileName) || strings.HasPrefix(base, kernel.EventsFile) ||
		strings.HasPrefix(base, ".") && strings.HasSuffix(base, ".tmp")):
		return true
	case strings.HasPrefix(r, decisionlog.InputsDirName+"/"), strings.HasPrefix(r, decisionlog.BundlesDirName+"/"),
		strings.HasPrefix(r, hosts.SpoolDir+"/"), strings.HasPrefix(r, "rounds/"), r == "cache/readmodel.json",
		strings.HasPrefix(r, "cache/") && strings.HasPrefix(base, ".") && strings.Contains(base, ".tmp"):
		return true
	}
	return false
}
