package cli

import (
	"context"
	"os"
	"time"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/output"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/frontend/check"
	"github.com/spf13/cobra"
)

// checkOptions are `loopx check`'s flags and arguments.
type checkOptions struct {
	scan           []string
	noScan         bool
	ticketPrefixes []string
	replay         bool
	againstNow     bool
	audit          bool
	since          string
	format         string
	strict         bool
	// json is the global --json (the default format).
	json bool
	// sinceDur is since parsed by validate.
	sinceDur *time.Duration
}

// validate checks the flags alone (no project opened): usage errors exit 2.
func (o *checkOptions) validate() error {
	switch o.format {
	case "":
		o.format = "text"
		if o.json {
			o.format = "json"
		}
	case "text", "json", "sarif":
		if o.format == "text" && o.json {
			o.format = "json"
		}
	default:
		return usagef("--format %q is not text, json or sarif", o.format)
	}
	if o.since != "" && !o.replay {
		return usagef("--since applies to --replay")
	}
	if o.againstNow && !o.replay {
		return usagef("--against-now applies to --replay")
	}
	if o.noScan && len(o.scan) > 0 {
		return usagef("--no-scan and --scan PATH contradict each other")
	}
	if o.since != "" {
		d, err := check.ParseSince(o.since)
		if err != nil {
			return sinceError(o.since)
		}
		o.sinceDur = &d
	}
	return nil
}

func (a *app) checkCmd() *cobra.Command {
	var o checkOptions
	c := &cobra.Command{
		Use:   "check [--scan PATH...] [--replay [--since 7d] [--against-now]] [--audit] [--format text|json|sarif] [--strict]",
		Short: "Audit the project: spec, policies, policy tests, lint rules, publication scan, replay",
		Long: `Check is the auditor's command. It
  1. vets the spec (loopx/*.cue), every error with file:line:col (rule spec);
  2. compiles every policy, built-in and user: a user policy that does not
     parse or compile, a package no query consults (a typo such as
     loopx.user.shouldrun) and a rule nothing reaches are errors at
     file:line:col (rule policy);
  3. runs the project's policy tests, loopx/policies/*_test.rego (rule
     policy-test);
  4. runs the lint rules, written in Rego and embedded, over the exported
     spec and a read-only snapshot of the state: vague-gate-question,
     goal-without-quota, scope-writes-loopx, unknown-agent, unknown-preset,
     stale-evidence, expired-lease, broken-dependency,
     min-interval-exceeds-window, goal-left-spec;
  5. scans the files to be published — the paths given with --scan (or as
     arguments), by default the files git tracks, or every file outside
     .loopx/ and .git/ outside a git repository — for credentials,
     private IPv4 addresses, private home paths and internal ticket ids
     (--ticket-prefixes), each hit as path:line:col: category; references to
     environment variables and obvious placeholders are warnings;
  6. with --replay, re-decides every logged decision (since --since ago)
     under the current spec and policies, on the input it was decided on
     (stored in .loopx/inputs/: what was known then), without logging,
     and lists each changed verdict (rule replay, a warning): decision
     id, old → new, and the rule that decides it now; a decision whose
     stored input was pruned is counted "not replayable (input pruned)",
     one whose stored input was altered since it was logged is an error;
     --against-now re-decides over the current state instead;
  7. with --audit, verifies the state store's whole hash chain (as loopx
     doctor does): every transaction's block and link, its records in the
     file, and the head against the anchor; the first bad transaction is
     an error (rule audit).

Output: text (file:line:col: rule: message), --json or --format json, or
--format sarif (SARIF 2.1.0, for code-scanning upload). --strict makes
warnings errors.

Exit codes: 0 clean (warnings allowed); 1 errors found; 2 usage or input
error (bad flags, a --scan path that does not exist, a spec that does not
load, as loopx vet: the report still lists its errors); 3 internal error (an
unusable state store, lint rules that do not compile).`,
		Example: `  loopx check
  loopx check --scan docs/ README.md --strict
  loopx check --replay --since 7d
  loopx check --replay --against-now
  loopx check --audit
  loopx check --format sarif > loopx.sarif`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.scan, o.json = append(o.scan, args...), a.json
			if err := o.validate(); err != nil {
				return err
			}
			return a.runCheck(cmd.Context(), &o)
		},
	}
	f := c.Flags()
	f.StringArrayVar(&o.scan, "scan", nil, "a file or directory to scan for publication (repeatable; arguments are scanned too; default: the files git tracks)")
	f.BoolVar(&o.noScan, "no-scan", false, "skip the publication scan")
	f.StringSliceVar(&o.ticketPrefixes, "ticket-prefixes", check.DefaultTicketPrefixes, "internal ticket-id prefixes the scan reports (PREFIX-123); empty turns it off")
	f.BoolVar(&o.replay, "replay", false, "re-decide the decision log under the current spec and policies, each decision on its stored input; list changed verdicts")
	f.BoolVar(&o.againstNow, "against-now", false, "with --replay: re-decide over the current state instead of the stored inputs")
	f.StringVar(&o.since, "since", "", "with --replay: only decisions this recent (e.g. 7d, 12h)")
	f.BoolVar(&o.audit, "audit", false, "verify the state store's whole hash chain against its anchor; name the first bad transaction")
	f.StringVar(&o.format, "format", "", "text, json or sarif (default text; json with --json)")
	f.BoolVar(&o.strict, "strict", false, "treat warnings as errors")
	return c
}

// runCheck opens the project (as on disk), runs the check pipeline and
// renders its report; exit 1 when it found errors.
func (a *app) runCheck(ctx context.Context, o *checkOptions) error {
	e, err := a.diskEngine()
	if err != nil {
		return err
	}
	rep, err := check.Run(ctx, e, check.Options{Scan: o.scan, NoScan: o.noScan, TicketPrefixes: o.ticketPrefixes,
		Replay: o.replay, AgainstNow: o.againstNow, Since: o.sinceDur, Strict: o.strict, Audit: o.audit})
	if err != nil {
		return err
	}
	switch o.format {
	case "sarif":
		err = output.JSON(a.stdout, check.SARIF(rep, Version, os.DirFS(e.Root())))
	case "json":
		err = output.JSON(a.stdout, rep)
	default:
		check.WriteText(a.stdout, rep)
	}
	if err != nil {
		return err
	}
	if !rep.Summary.SpecOK {
		return reported(errs.Input) // as loopx vet: the spec does not load
	}
	if !rep.OK {
		return reported(errs.No)
	}
	return nil
}
