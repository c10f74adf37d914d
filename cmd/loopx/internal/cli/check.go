package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/output"
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/rulebook"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/lint"
	"github.com/loopx-dev/loopx/presets"
	"github.com/loopx-dev/loopx/specs"
	"github.com/spf13/cobra"
)

// checkOptions are `loopx check`'s flags.
type checkOptions struct {
	scan           []string
	noScan         bool
	ticketPrefixes []string
	replay         bool
	since          string
	format         string
	strict         bool
}

// checkReport is `loopx check --json`.
type checkReport struct {
	OK       bool           `json:"ok"`
	Summary  checkSummary   `json:"summary"`
	Findings []lint.Finding `json:"findings"`
	// Replay is present with --replay.
	Replay *engine.ReplayReport `json:"replay,omitempty"`
}

// checkSummary counts what check looked at and found.
type checkSummary struct {
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
	// FilesScanned is how many files the publication scan read; -1 with --no-scan.
	FilesScanned int `json:"files_scanned"`
}

func (a *app) checkCmd() *cobra.Command {
	var o checkOptions
	c := &cobra.Command{
		Use:   "check [--scan PATH...] [--replay [--since 7d]] [--format text|json|sarif] [--strict]",
		Short: "Audit the project: spec, policies, policy tests, lint rules, publication scan, replay",
		Long: `Check is the auditor's command (design §11). It
  1. vets the spec (loopx/*.cue), every error with file:line:col (rule spec);
  2. compiles every policy, built-in and user: a user policy that does not
     parse or compile, a package no query consults (loopx.user.shouldrun,
     case C14) and a rule nothing reaches are errors at file:line:col
     (rule policy);
  3. runs the project's policy tests, loopx/policies/*_test.rego (rule
     policy-test);
  4. runs the lint rules, written in Rego and embedded, over the exported
     spec and a read-only snapshot of the state: vague-gate-question,
     goal-without-quota, scope-writes-loopx, unknown-agent, unknown-preset,
     stale-evidence, expired-lease, broken-dependency,
     min-interval-exceeds-window;
  5. scans the files to be published — the paths given with --scan (or as
     arguments), by default the files git tracks, or every file outside
     .loopx/ and .git/ outside a git repository — for credentials,
     private IPv4 addresses, private home paths and internal ticket ids
     (--ticket-prefixes), each hit as path:line: category; references to
     environment variables and obvious placeholders are warnings;
  6. with --replay, re-decides every logged decision (since --since ago)
     under the current spec, policies and state, without logging, and
     lists each changed verdict (rule replay, a warning): decision id,
     old → new, and the rule that decides it now.

Output: text (file:line:col: rule: message), --json or --format json, or
--format sarif (SARIF 2.1.0, for code-scanning upload). --strict makes
warnings errors.

Exit codes: 0 clean (warnings allowed); 1 errors found; 2 usage error
(bad flags, a --scan path that does not exist); 3 internal error (an
unusable state store, lint rules that do not compile).`,
		Example: `  loopx check
  loopx check --scan docs/ README.md --strict
  loopx check --replay --since 7d
  loopx check --format sarif > loopx.sarif`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.scan = append(o.scan, args...)
			switch o.format {
			case "":
				o.format = "text"
				if a.json {
					o.format = "json"
				}
			case "text", "json", "sarif":
				if o.format == "text" && a.json {
					o.format = "json"
				}
			default:
				return usagef("--format %q is not text, json or sarif", o.format)
			}
			if o.since != "" && !o.replay {
				return usagef("--since applies to --replay")
			}
			if o.noScan && len(o.scan) > 0 {
				return usagef("--no-scan and --scan PATH contradict each other")
			}
			return a.runCheck(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringArrayVar(&o.scan, "scan", nil, "a file or directory to scan for publication (repeatable; arguments are scanned too; default: the files git tracks)")
	f.BoolVar(&o.noScan, "no-scan", false, "skip the publication scan")
	f.StringSliceVar(&o.ticketPrefixes, "ticket-prefixes", lint.DefaultTicketPrefixes, "internal ticket-id prefixes the scan reports (PREFIX-123); empty turns it off")
	f.BoolVar(&o.replay, "replay", false, "re-decide the decision log under the current spec, policies and state; list changed verdicts")
	f.StringVar(&o.since, "since", "", "with --replay: only decisions this recent (e.g. 7d, 12h)")
	f.StringVar(&o.format, "format", "", "text, json or sarif (default text; json with --json)")
	f.BoolVar(&o.strict, "strict", false, "treat warnings as errors")
	return c
}

func (a *app) runCheck(ctx context.Context, o checkOptions) error {
	e, err := a.diskEngine()
	if err != nil {
		return err
	}
	var findings []lint.Finding
	sum := checkSummary{FilesScanned: -1}

	// 1. The spec.
	loaded, specErr := e.Spec()
	var se errs.List
	switch {
	case errors.As(specErr, &se):
		for _, s := range se {
			msg := s.Message
			if s.Location.Field != "" {
				msg = s.Location.Field + ": " + msg
			}
			f := lint.Finding{Rule: "spec", Severity: lint.SeverityError, Message: msg, Ref: s.Location.Field}
			if s.Location.File != "" {
				f.Location = &lint.Location{File: s.Location.File, Row: s.Location.Line, Col: s.Location.Col}
			}
			findings = append(findings, f)
		}
	case specErr != nil:
		return specErr
	default:
		sum.SpecOK = true
	}

	// 2. The policies; 3. their tests.
	mods, bad, err := e.UserPolicies()
	if err != nil {
		return err
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
			sum.UserPolicies++
		}
	}
	probs, err := e.CheckPolicies()
	if err != nil {
		return err
	}
	findings = append(findings, policyFindings(probs)...)
	if len(probs) == 0 {
		rep, err := e.TestPolicies(ctx)
		if err != nil {
			return err
		}
		findings = append(findings, policyFindings(rep.Problems)...)
		sum.PolicyTests, sum.PolicyTestsPassed = rep.Total, rep.Pass
		for _, r := range rep.Results {
			if r.Status != "fail" && r.Status != "error" {
				continue
			}
			msg := fmt.Sprintf("%s.%s: %s", strings.TrimPrefix(r.Package, "data."), r.Name, strings.ToUpper(r.Status))
			if r.Error != "" {
				msg += ": " + r.Error
			}
			findings = append(findings, lint.Finding{Rule: "policy-test", Severity: lint.SeverityError, Message: msg,
				Location: &lint.Location{File: r.File, Row: r.Row, Col: 1}})
		}
	}

	// 4. The lint rules, over the spec and a read-only state snapshot.
	if sum.SpecOK {
		state, err := e.CheckState()
		if err != nil {
			return err
		}
		var locate lint.Locator
		if loc, err := specs.NewLocator(e.SpecDir()); err == nil {
			locate = func(path []string) *lint.Location {
				p, _ := loc.Find(path)
				return &lint.Location{File: p.File, Row: p.Line, Col: p.Col}
			}
		}
		lf, err := lint.Lint(ctx, lint.Input{Spec: json.RawMessage(loaded.JSON), State: state, Now: e.Now(), Presets: presets.Names()}, locate)
		if err != nil {
			return err // an internal error: exit 3
		}
		findings = append(findings, lf...)
		sum.LintRules = len(lint.Rules())
	}

	// 5. The publication scan.
	if !o.noScan {
		var files []string
		if len(o.scan) > 0 {
			files, err = lint.ExpandScanPaths(e.Root(), o.scan)
			if errors.Is(err, fs.ErrNotExist) {
				return usagef("%v", err)
			}
		} else {
			files, err = lint.PublishedFiles(e.Root())
		}
		if err != nil {
			return err
		}
		hits, skipped, err := lint.Scan(e.Root(), files, lint.ScanOptions{TicketPrefixes: nonNilStrings(o.ticketPrefixes)})
		if err != nil {
			return err
		}
		findings = append(findings, hits...)
		sum.FilesScanned = len(files) - skipped
	}

	// 6. The replay of the decision log.
	var replay *engine.ReplayReport
	if o.replay {
		var since time.Time
		if o.since != "" {
			d, err := specs.ParseDuration(o.since)
			if err != nil {
				return usagef("--since %q: %v", o.since, err)
			}
			since = e.Now().Add(-d)
		}
		rep, err := e.Replay(ctx, since)
		if err != nil {
			return err
		}
		replay = &rep
		for _, c := range rep.Changed {
			findings = append(findings, lint.Finding{Rule: "replay", Severity: lint.SeverityWarning, Ref: "decision " + c.DecisionID,
				Message: fmt.Sprintf("decision %s (%s %s/%s at %s): %s → %s, now by %s: %s", c.DecisionID, c.Query, c.Goal, c.Agent,
					c.Timestamp.Format(time.RFC3339), c.Old, c.New, c.Rule, c.Message),
				Location: &lint.Location{File: engine.StateDirName + "/" + engine.LogFileName}})
		}
	}

	if o.strict {
		for i := range findings {
			findings[i].Severity = lint.SeverityError
		}
	}
	lint.Sort(findings)
	if findings == nil {
		findings = []lint.Finding{}
	}
	sum.Errors, sum.Warnings = lint.Count(findings, false)
	rep := checkReport{OK: sum.Errors == 0, Summary: sum, Findings: findings, Replay: replay}
	switch o.format {
	case "sarif":
		if err := output.JSON(a.stdout, lint.ToSARIF(findings, lint.AllRules(), Version, os.DirFS(e.Root()))); err != nil {
			return err
		}
	case "json":
		if err := output.JSON(a.stdout, rep); err != nil {
			return err
		}
	default:
		renderCheck(a.stdout, rep)
	}
	if !rep.OK {
		return reported(errs.No)
	}
	return nil
}

// policyFindings turns the engine's policy problems into findings.
func policyFindings(probs []rulebook.Problem) []lint.Finding {
	out := make([]lint.Finding, 0, len(probs))
	for _, p := range probs {
		msg := p.Code + ": " + p.Message
		if p.Rule != "" {
			msg += " (rule " + p.Rule + ")"
		}
		f := lint.Finding{Rule: "policy", Severity: lint.SeverityError, Message: msg}
		if p.File != "" {
			f.Location = &lint.Location{File: p.File, Row: p.Row, Col: p.Col}
		}
		out = append(out, f)
	}
	return out
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// renderCheck prints the findings, one per line, then a summary line.
func renderCheck(w io.Writer, rep checkReport) {
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
		parts = append(parts, fmt.Sprintf("%d %s replayed, %d changed", r.Decisions, plural(r.Decisions, "decision", "decisions"), len(r.Changed)))
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
