package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

// policyTestOptions are the flags of `loopx policy test` (this file is not
// named policy_test.go: that would be a Go test file).
type policyTestOptions struct {
	failOnEmpty, verbose bool
}

// validate checks the flags alone (no project opened).
func (o *policyTestOptions) validate() error { return nil }

// runPolicyTest runs the policy tests of loopx/ as it is on disk
// (engine.TestPolicies) and prints them as opa test does.
func (a *app) runPolicyTest(ctx context.Context, o *policyTestOptions) error {
	e, err := a.diskEngine()
	if err != nil {
		return err
	}
	rep, err := e.TestPolicies(ctx)
	if err != nil {
		return err
	}
	empty := rep.Total == 0 && len(rep.Problems) == 0
	if err := a.print(rep, func(w io.Writer) { renderPolicyTests(w, a.stderr, rep, o.verbose) }); err != nil {
		return err
	}
	if empty && !a.json {
		fmt.Fprintln(a.stderr, "no tests found in loopx/policies/*_test.rego")
	}
	if !rep.OK() || (empty && o.failOnEmpty) {
		return reported(errs.No)
	}
	return nil
}

func (a *app) policyTestCmd() *cobra.Command {
	o := &policyTestOptions{}
	c := &cobra.Command{
		Use:   "test",
		Short: "Run the project's policy tests (loopx/policies/*_test.rego) like opa test",
		Long: `Test runs every test_ rule of loopx/policies/**/*_test.rego with OPA's tester
over the built-in bundle and the user policies, with data.loopx.spec set to
the exported spec, and prints the results as opa test does: the failures,
then PASS: n/m (FAIL, ERROR when any). -v lists every test by file.

A user policy that does not parse, or whose package no query consults (a
typo such as loopx.user.shouldrun), is reported with
file:line:col and fails the run before any test: a passing test of a
policy loopx never reads would prove nothing.

Exit codes: 0 every test passed; 1 a test failed or errored, a policy has a
problem, or (--fail-on-empty) there are no tests; 2 usage error.`,
		Example: `  loopx policy test
  loopx policy test -v --fail-on-empty
  loopx policy test --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runPolicyTest(cmd.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.failOnEmpty, "fail-on-empty", false, "exit 1 when there are no tests")
	c.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "list every test, grouped by file")
	return c
}

// renderPolicyTests prints a test report the way opa test does (without
// timings, so that the output is stable): problems go to errw.
func renderPolicyTests(w, errw io.Writer, rep rulebook.TestReport, verbose bool) {
	for _, p := range rep.Problems {
		fmt.Fprintln(errw, p.String())
	}
	if len(rep.Problems) > 0 {
		fmt.Fprintf(errw, "%d policy problem(s): no test ran\n", len(rep.Problems))
		return
	}
	if rep.Total == 0 {
		return
	}
	line := strings.Repeat("-", 80)
	var failed []rulebook.TestResult
	for _, r := range rep.Results {
		if r.Status == "fail" || r.Status == "error" {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "FAILURES\n%s\n", line)
		for _, r := range failed {
			fmt.Fprintf(w, "%s:%d: %s.%s: %s\n", r.File, r.Row, r.Package, r.Name, strings.ToUpper(r.Status))
			if r.Error != "" {
				fmt.Fprintf(w, "  %s\n", r.Error)
			}
			for _, l := range strings.Split(strings.TrimRight(r.Output, "\n"), "\n") {
				if l != "" {
					fmt.Fprintf(w, "  output: %s\n", l)
				}
			}
		}
		fmt.Fprintf(w, "\nSUMMARY\n%s\n", line)
	}
	if verbose || len(failed) > 0 {
		file := ""
		for _, r := range rep.Results {
			if !verbose && r.Status != "fail" && r.Status != "error" {
				continue
			}
			if r.File != file {
				if file != "" {
					fmt.Fprintln(w)
				}
				file = r.File
				fmt.Fprintf(w, "%s:\n", file)
			}
			fmt.Fprintf(w, "%s.%s: %s\n", r.Package, r.Name, strings.ToUpper(r.Status))
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "PASS: %d/%d\n", rep.Pass, rep.Total)
	if rep.Fail > 0 {
		fmt.Fprintf(w, "FAIL: %d/%d\n", rep.Fail, rep.Total)
	}
	if rep.Errors > 0 {
		fmt.Fprintf(w, "ERROR: %d/%d\n", rep.Errors, rep.Total)
	}
	if rep.Skip > 0 {
		fmt.Fprintf(w, "SKIPPED: %d/%d\n", rep.Skip, rep.Total)
	}
}
