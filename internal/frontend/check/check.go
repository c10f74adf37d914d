// Package check is `loopx check`'s pipeline, the auditor's view of a
// project: it vets the spec, compiles every policy and runs
// the project's policy tests, runs the Rego lint rules over the spec and a
// read-only state snapshot, scans the files to be published, replays the
// decision log, and assembles the findings into one Report (text, JSON or
// SARIF).
//
// It imports the top engine package: the spec, the policy compilation and
// tests, the state snapshot and the replay are the engine's read-only
// views of the project (Replay re-decides through the engine's prepared
// queries), and the engine never imports this package.
package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/decisionlog"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/lint"
	"github.com/loopx-dev/loopx/presets"
	"github.com/loopx-dev/loopx/specs"
)

// Finding is one problem check reports (lint.Finding).
type Finding = lint.Finding

// DefaultTicketPrefixes are the internal ticket-id prefixes the
// publication scan reports by default (lint.DefaultTicketPrefixes).
var DefaultTicketPrefixes = lint.DefaultTicketPrefixes

// Options say what one check runs beyond the spec, policies and lint rules.
type Options struct {
	// Scan are the files and directories to scan for publication,
	// relative to the project root or absolute; empty = the files git
	// tracks (every file outside .loopx/ and .git/ outside a git repository).
	Scan []string
	// NoScan skips the publication scan.
	NoScan bool
	// TicketPrefixes are the internal ticket-id prefixes the scan reports
	// (PREFIX-123); empty turns that category off.
	TicketPrefixes []string
	// Replay re-decides the decision log under the current rules, each
	// decision on its stored input (what was known then).
	Replay bool
	// AgainstNow, with Replay, re-decides over the current state instead.
	AgainstNow bool
	// Audit verifies the store's whole hash chain against its anchor
	// (engine.VerifyChain).
	Audit bool
	// Since limits the replay to decisions this recent (nil = the whole log).
	Since *time.Duration
	// Strict makes every warning an error.
	Strict bool
}

// Report is `loopx check --json`.
type Report struct {
	OK       bool      `json:"ok"`
	Summary  Summary   `json:"summary"`
	Findings []Finding `json:"findings"`
	// Replay is present with Options.Replay.
	Replay *decision.ReplayReport `json:"replay,omitempty"`
	// Audit is present with Options.Audit: the chain verified.
	Audit *records.ChainReport `json:"audit,omitempty"`
}

// Summary counts what check looked at and found.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// SpecOK is false when the spec does not validate (the lint rules then
	// do not run).
	SpecOK bool `json:"spec_ok"`
	// UserPolicies counts loopx/policies/*.rego files that are not tests.
	UserPolicies int `json:"user_policies"`
	// PolicyTests counts the project's policy tests and how many passed.
	PolicyTests       int `json:"policy_tests"`
	PolicyTestsPassed int `json:"policy_tests_passed"`
	// LintRules is how many Rego lint rules ran (0 when the spec is broken).
	LintRules int `json:"lint_rules"`
	// FilesScanned is how many files the publication scan read; -1 with NoScan.
	FilesScanned int `json:"files_scanned"`
}

// ParseSince reads a --since duration ("7d", "12h"): the spec's duration
// syntax (specs.ParseDuration).
func ParseSince(s string) (time.Duration, error) { return specs.ParseDuration(s) }

// Run audits e's project. The report's OK is false when it found errors.
// Errors: errs.Usage for a Scan path that does not exist; the store's
// errors (an unusable state store); an internal error when the lint rules
// do not compile or the decision log cannot be read.
func Run(ctx context.Context, e *engine.Engine, o Options) (Report, error) {
	var findings []Finding
	sum := Summary{FilesScanned: -1}

	// 1. The spec.
	loaded, specErr := e.Spec()
	var se errs.List
	switch {
	case errors.As(specErr, &se):
		findings = append(findings, specFindings(se)...)
	case specErr != nil:
		return Report{}, specErr
	default:
		sum.SpecOK = true
	}

	// 2. The policies; 3. their tests.
	n, pf, tests, passed, err := policyChecks(ctx, e)
	if err != nil {
		return Report{}, err
	}
	findings = append(findings, pf...)
	sum.UserPolicies, sum.PolicyTests, sum.PolicyTestsPassed = n, tests, passed

	// 4. The lint rules, over the spec and a read-only state snapshot.
	if sum.SpecOK {
		lf, err := lintFindings(ctx, e, loaded)
		if err != nil {
			return Report{}, err
		}
		findings = append(findings, lf...)
		sum.LintRules = len(lint.Rules())
	}

	// 5. The publication scan.
	if !o.NoScan {
		hits, scanned, err := scan(e.Root(), o)
		if err != nil {
			return Report{}, err
		}
		findings = append(findings, hits...)
		sum.FilesScanned = scanned
	}

	// 6. The replay of the decision log.
	var replay *decision.ReplayReport
	if o.Replay {
		var since time.Time
		if o.Since != nil {
			since = e.Now().Add(-*o.Since)
		}
		rep, err := e.Replay(ctx, since, o.AgainstNow)
		if err != nil {
			return Report{}, err
		}
		replay = &rep
		findings = append(findings, replayFindings(rep)...)
	}

	// 7. The store's whole chain.
	var audit *records.ChainReport
	if o.Audit {
		c, err := e.VerifyChain()
		if err != nil {
			return Report{}, err
		}
		audit = &c
		if !c.OK() {
			f := lint.CheckRule(lint.RuleAudit, render.ChainLine(c))
			f.Location = &lint.Location{File: scaffold.StateDirName + "/state.db"}
			findings = append(findings, f)
		}
	}

	if o.Strict {
		for i := range findings {
			findings[i].Severity = lint.SeverityError
		}
	}
	lint.Sort(findings)
	if findings == nil {
		findings = []Finding{}
	}
	sum.Errors, sum.Warnings = lint.Count(findings, false)
	return Report{OK: sum.Errors == 0, Summary: sum, Findings: findings, Replay: replay, Audit: audit}, nil
}

// specFindings are the spec's errors as findings (rule spec).
func specFindings(se errs.List) []Finding {
	out := make([]Finding, 0, len(se))
	for _, s := range se {
		msg := s.Message
		if s.Location.Field != "" {
			msg = s.Location.Field + ": " + msg
		}
		f := lint.CheckRule(lint.RuleSpec, msg)
		f.Ref = s.Location.Field
		if s.Location.File != "" {
			f.Location = &lint.Location{File: s.Location.File, Row: s.Location.Line, Col: s.Location.Col}
		}
		out = append(out, f)
	}
	return out
}

// policyChecks compiles every policy (rule policy) and, when they all
// compile, runs the project's policy tests (rule policy-test): the user
// policies counted, the findings, and the tests run and passed.
func policyChecks(ctx context.Context, e *engine.Engine) (userPolicies int, findings []Finding, tests, passed int, err error) {
	mods, bad, err := e.UserPolicies()
	if err != nil {
		return 0, nil, 0, 0, err
	}
	files := map[string]bool{}
	for _, m := range mods {
		files[m.Path] = !m.Test
	}
	for _, p := range bad {
		files[p.File] = !strings.HasSuffix(p.File, "_test.rego")
	}
	for _, policy := range files {
		if policy {
			userPolicies++
		}
	}
	probs, err := e.CheckPolicies()
	if err != nil {
		return 0, nil, 0, 0, err
	}
	findings = policyFindings(probs)
	if len(probs) > 0 {
		return userPolicies, findings, 0, 0, nil
	}
	rep, err := e.TestPolicies(ctx)
	if err != nil {
		return 0, nil, 0, 0, err
	}
	findings = append(findings, policyFindings(rep.Problems)...)
	for _, r := range rep.Results {
		if r.Status != "fail" && r.Status != "error" {
			continue
		}
		msg := fmt.Sprintf("%s.%s: %s", strings.TrimPrefix(r.Package, "data."), r.Name, strings.ToUpper(r.Status))
		if r.Error != "" {
			msg += ": " + r.Error
		}
		f := lint.CheckRule(lint.RulePolicyTest, msg)
		f.Location = &lint.Location{File: r.File, Row: r.Row, Col: 1}
		findings = append(findings, f)
	}
	return userPolicies, findings, rep.Total, rep.Pass, nil
}

// policyFindings turns the engine's policy problems into findings.
func policyFindings(probs []rulebook.Problem) []Finding {
	out := make([]Finding, 0, len(probs))
	for _, p := range probs {
		msg := p.Code + ": " + p.Message
		if p.Rule != "" {
			msg += " (rule " + p.Rule + ")"
		}
		f := lint.CheckRule(lint.RulePolicy, msg)
		if p.File != "" {
			f.Location = &lint.Location{File: p.File, Row: p.Row, Col: p.Col}
		}
		out = append(out, f)
	}
	return out
}

// lintFindings runs the lint rules over the loaded spec and the engine's
// read-only state snapshot, placing spec findings at the user's files.
func lintFindings(ctx context.Context, e *engine.Engine, loaded *specs.Loaded) ([]Finding, error) {
	state, err := e.CheckState()
	if err != nil {
		return nil, err
	}
	var locate lint.Locator
	if loc, err := specs.NewLocator(e.SpecDir()); err == nil {
		locate = func(path []string) *lint.Location {
			p, _ := loc.Find(path)
			return &lint.Location{File: p.File, Row: p.Line, Col: p.Col}
		}
	}
	// An error here is internal (exit 3): the embedded rules are broken.
	return lint.Lint(ctx, lint.Input{Spec: json.RawMessage(loaded.JSON), State: state, Now: e.Now(), Presets: presets.Names()}, locate)
}

// scan runs the publication scan under root: its hits and how many files
// it read.
func scan(root string, o Options) ([]Finding, int, error) {
	var files []string
	var err error
	if len(o.Scan) > 0 {
		files, err = lint.ExpandScanPaths(root, o.Scan)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, errs.Usagef("usage", "%v", err)
		}
	} else {
		files, err = lint.PublishedFiles(root)
	}
	if err != nil {
		return nil, 0, err
	}
	prefixes := o.TicketPrefixes
	if prefixes == nil {
		prefixes = []string{}
	}
	hits, skipped, err := lint.Scan(root, files, lint.ScanOptions{TicketPrefixes: prefixes})
	if err != nil {
		return nil, 0, err
	}
	return hits, len(files) - skipped, nil
}

// replayFindings are the changed verdicts as warnings (rule replay).
func replayFindings(rep decision.ReplayReport) []Finding {
	out := make([]Finding, 0, len(rep.Changed))
	for _, c := range rep.Changed {
		why := fmt.Sprintf("now by %s: %s", c.Rule, c.Message)
		if c.Rule == "" {
			why = "no rule objects now" // an allow with no reason against it
		}
		f := lint.CheckRule(lint.RuleReplay, fmt.Sprintf("decision %s (%s %s/%s at %s): %s → %s, %s", c.DecisionID, c.Query, c.Goal, c.Agent,
			c.Timestamp.Format(time.RFC3339), c.Old, c.New, why))
		f.Ref = "decision " + c.DecisionID
		f.Location = &lint.Location{File: scaffold.StateDirName + "/" + decisionlog.FileName}
		out = append(out, f)
	}
	// An input changed after its decision was logged is not a rule
	// change but tampering with the record: an error, so check fails.
	for _, id := range rep.Altered {
		f := lint.CheckRule(lint.RuleReplay, fmt.Sprintf("decision %s: its stored input was altered since it was logged (its SHA-256 is not the one the log names); not replayed", id))
		f.Severity = lint.SeverityError
		f.Ref = "decision " + id
		f.Location = &lint.Location{File: scaffold.StateDirName + "/" + decisionlog.FileName}
		out = append(out, f)
	}
	return out
}

// SARIF is rep as a SARIF 2.1.0 log (for code-scanning upload): every
// rule check knows, the findings, and their snippets read from project
// (the project root); version is loopx's.
func SARIF(rep Report, version string, project fs.FS) any {
	return lint.ToSARIF(rep.Findings, lint.AllRules(), version, project)
}

// WriteText prints the findings, one per line (file:line:col: rule:
// message), then a summary line.
func WriteText(w io.Writer, rep Report) {
	lint.WriteText(w, rep.Findings)
	s := rep.Summary
	var parts []string
	if s.SpecOK {
		parts = append(parts, "spec ok")
	} else {
		parts = append(parts, "spec invalid, lint rules skipped")
	}
	parts = append(parts, fmt.Sprintf("%d user %s", s.UserPolicies, plural(s.UserPolicies, "policy", "policies")))
	if s.PolicyTests > 0 {
		parts = append(parts, fmt.Sprintf("policy tests %d/%d passed", s.PolicyTestsPassed, s.PolicyTests))
	}
	if s.LintRules > 0 {
		parts = append(parts, fmt.Sprintf("%d lint rules", s.LintRules))
	}
	if s.FilesScanned >= 0 {
		parts = append(parts, fmt.Sprintf("%d %s scanned", s.FilesScanned, plural(s.FilesScanned, "file", "files")))
	}
	if r := rep.Replay; r != nil {
		p := fmt.Sprintf("%d %s replayed, %d changed", r.Decisions, plural(r.Decisions, "decision", "decisions"), len(r.Changed))
		if n := r.NotReplayable - len(r.Altered); n > 0 {
			p += fmt.Sprintf(", %d not replayable (input pruned)", n)
		}
		if n := len(r.Altered); n > 0 {
			p += fmt.Sprintf(", %d not replayable (input altered since it was logged: %s)", n, strings.Join(r.Altered, ", "))
		}
		parts = append(parts, p)
	}
	if c := rep.Audit; c != nil && c.OK() {
		parts = append(parts, render.ChainLine(*c))
	}
	verdict := "ok"
	if !rep.OK {
		verdict = "failed"
	}
	fmt.Fprintf(w, "check %s: %d %s, %d %s (%s)\n", verdict, s.Errors, plural(s.Errors, "error", "errors"),
		s.Warnings, plural(s.Warnings, "warning", "warnings"), strings.Join(parts, "; "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
