// Package evidence checks an evidence request (`loopx evidence add`, a
// round finish's evidence) before it is stored: a summary, a kind and a
// status the spec schema allows (defaults note and info), and a local
// path reference made relative to the project (no absolute local path is
// kept in state). It reads no state.
package evidence

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Values the CLI accepts, matching the spec schema (specs/schema.cue).
var (
	// Kinds are evidence kinds.
	Kinds = []string{"test", "pr", "log", "metric", "check", "note"}
	// Statuses are evidence statuses.
	Statuses = []string{"pass", "fail", "info"}
)

// Check returns ev with its defaults filled (kind note, status info) and
// an absolute Ref inside root made relative. Errors: errs.Usage
// empty_summary, bad_status, bad_kind.
func Check(ev records.Evidence, root string) (records.Evidence, error) {
	if strings.TrimSpace(ev.Summary) == "" {
		return ev, errs.Usagef("empty_summary", "evidence needs a summary")
	}
	if err := inert.CheckLen("the evidence summary", ev.Summary, true); err != nil {
		return ev, errs.Usagef("too_long", "%v", err)
	}
	if err := inert.CheckLen("the evidence reference (--ref)", ev.Ref, false); err != nil {
		return ev, errs.Usagef("too_long", "%v", err)
	}
	if err := inert.CheckList("the guarded action (--action)", []string{ev.Action}); err != nil {
		return ev, errs.Usagef("too_long", "%v", err)
	}
	if ev.Kind == "" {
		ev.Kind = "note"
	}
	if ev.Status == "" {
		ev.Status = "info"
	}
	if !slices.Contains(Statuses, ev.Status) {
		return ev, errs.Usagef("bad_status", "evidence status %q is not one of %v", ev.Status, Statuses)
	}
	if filepath.IsAbs(ev.Ref) { // keep no absolute local path in state
		if rel, err := filepath.Rel(root, ev.Ref); err == nil && !strings.HasPrefix(rel, "..") {
			ev.Ref = filepath.ToSlash(rel)
		}
	}
	if !slices.Contains(Kinds, ev.Kind) {
		return ev, errs.Usagef("bad_kind", "evidence kind %q is not one of %v", ev.Kind, Kinds)
	}
	return ev, nil
}
