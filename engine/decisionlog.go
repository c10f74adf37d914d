package engine

import (
	"errors"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/engine/deciding/decisionlog"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/internal/buildinfo"
)

// Version is loopx's version, set at build time with
// -ldflags "-X github.com/loopx-dev/loopx/engine.Version=v1.2.3"; left
// "dev", it becomes what the binary's build information names at start
// (buildinfo.Version: the module version, else "dev (REVISION[, modified])").
// The decision log records it as labels.version.
var Version = "dev"

func init() { Version = buildinfo.Version(Version) }

// decisionLog is the project's decision log with the engine's line types.
type decisionLog = decisionlog.Log[decision.LogInput, parts.QuotaSummary]

// LogPath is the decision log of the project (.loopx/decisions.jsonl).
func (e *Engine) LogPath() string { return e.sess.log.Path() }

// logDecision appends d, decided on in at now, to the decision log through
// write (the log's Append, or Later under the lock): the request without
// the snapshot on the line, the whole input stored beside it, and the
// policy and spec bundles it names (decisionlog.Log.Append).
func (e *Engine) logDecision(write func(decision.LogEntry, []byte, ...decisionlog.Bundle) error, d decision.Decision, in input.Input, now time.Time) error {
	le, inRaw, err := decision.LogEntryOf(d, in, now)
	if err != nil {
		return err
	}
	bundles := []decisionlog.Bundle{{Name: decisionlog.PolicyBundle, Revision: d.Revision.Policy, Files: e.policyBundleFiles(d.Revision.Policy)}}
	if e.rules.spec != nil && d.Revision.Spec != "" {
		bundles = append(bundles, decisionlog.Bundle{Name: decisionlog.SpecBundle, Revision: d.Revision.Spec, Files: e.specBundleFiles(d.Revision.Spec)})
	}
	return write(le, inRaw, bundles...)
}

// unrecorded is d once writing it to the decision log failed with err: a
// deny (code decision_log_error, saying why) with d's id, query, goal,
// agent, quota and revisions, so that a decision whose record could not
// be written is never shown or acted on as a run or an allow.
func unrecorded(d decision.Decision, err error) decision.Decision {
	n := decision.Deny("decision_log_error", "the decision could not be recorded in the decision log, so it is a deny: "+err.Error(), decision.Named(d.Query).Entry)
	n.DecisionID, n.Query, n.Goal, n.Agent, n.Quota, n.Revision = d.DecisionID, d.Query, d.Goal, d.Agent, d.Quota, d.Revision
	return n
}

// policyBundleFiles gives the policy bundle at revision rev: every
// built-in module (all areas) and the user policies, under roots that
// leave loopx/spec to the spec bundle.
func (e *Engine) policyBundleFiles(rev string) func() (map[string][]byte, []string, error) {
	return func() (map[string][]byte, []string, error) {
		user, err := e.rules.UserModules()
		if err != nil {
			user = nil // the decision is a policy_error deny; the bundle holds the built-in modules
		}
		files, roots := rulebook.PolicyBundle(user, rev)
		return files, roots, nil
	}
}

// specBundleFiles gives the spec bundle at revision rev: the exported spec
// as loopx/spec/data.json (data.loopx.spec).
func (e *Engine) specBundleFiles(rev string) func() (map[string][]byte, []string, error) {
	return func() (map[string][]byte, []string, error) {
		if e.rules.spec == nil || e.rules.spec.Hash != rev {
			return nil, nil, errors.New("the spec of revision " + rev + " is not loaded")
		}
		return map[string][]byte{"loopx/spec/data.json": e.rules.spec.JSON}, []string{"loopx/spec"}, nil
	}
}

// ReadLog returns the decision-log entries that match f, oldest first,
// reading the rotated files and the current one. Lines that do not parse
// (a torn write, a foreign line) are skipped and counted in skipped. A
// project without a decision log has no entries and no error.
func (e *Engine) ReadLog(f decision.LogFilter) (entries []decision.LogEntry, skipped int, err error) {
	return e.sess.log.Read(f.Match, f.Limit)
}

// FindDecision returns the decision-log entry with this decision id,
// searching the current log first, then the rotated ones. A missing id is
// an errs.Usage error with code unknown_decision.
func (e *Engine) FindDecision(id string) (decision.LogEntry, error) {
	le, err := e.sess.log.Find(id)
	if errors.Is(err, decisionlog.ErrNotFound) {
		return le, Usagef("unknown_decision", "no decision %s in the decision log %s (or its %d rotated files)", id, e.LogPath(), decisionlog.Keep)
	}
	return le, err
}
