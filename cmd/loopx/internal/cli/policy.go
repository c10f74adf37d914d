package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/rulebook"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

func (a *app) policyCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "policy",
		Short: "Test the project's policies and try a query by hand",
		Long: `User policies live in loopx/policies/*.rego (Rego v1), beside the built-in
bundle: package loopx.user.should_run, loopx.user.permission,
loopx.user.claim or loopx.user.gate_answer (one per query), with
"deny contains reason if …" and "warn contains reason if …" (a reason is a
string or {code, message}); helpers go in loopx.user.lib. Tests are
*_test.rego files beside them.

Policies are type-checked against the JSON schema of each query's input
and of data.loopx.spec ("loopx policy schema"): a reference to a field
that does not exist (input.permission.comand) is an error with
file:line:col in vet, check and policy test, and every decision denies
(policy_error) until it is fixed. Policies may not call http.send,
net.lookup_ip_addr, opa.runtime, time.now_ns, rand.intn, uuid.rfc4122 or
OPA's other non-deterministic built-ins (the time is input.now), and one
evaluation runs at most project.policy_deadline (default 2s).`,
	}
	c.AddCommand(a.policyTestCmd(), a.policyEvalCmd(), a.policySchemaCmd())
	return c
}

func (a *app) policySchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema QUERY|spec",
		Short: "Print the JSON schema policies are type-checked with",
		Long: `Schema prints the JSON schema (draft-07) of a query's input (should_run,
permission) or, for "spec", of data.loopx.spec: the schemas OPA
type-checks every policy with, each field with its description. They are
generated from the types loopx fills, so they are exactly what a policy
sees. Objects are closed: a
reference to a field a schema does not declare is a compile error. Below a
map keyed by id (data.loopx.spec.goals[g], agents, gates) OPA checks
nothing.

In package loopx.user.should_run (and loopx.run) input is the should_run
input; in loopx.user.permission the permission input; in other packages
(loopx.user.lib, tests) the input of any query.

Exit codes: 0 printed; 2 an unknown name.`,
		Example: `  loopx policy schema permission
  loopx policy schema should_run | jq '.properties.state.properties | keys'
  loopx policy schema spec`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if q, ok := engine.QueryName(name); ok {
				name = q
			}
			b, err := engine.PolicySchema(name)
			if err != nil {
				return err
			}
			_, err = a.stdout.Write(b)
			return err
		},
	}
}

func (a *app) policyTestCmd() *cobra.Command {
	var failOnEmpty, verbose bool
	c := &cobra.Command{
		Use:   "test",
		Short: "Run the project's policy tests (loopx/policies/*_test.rego) like opa test",
		Long: `Test runs every test_ rule of loopx/policies/**/*_test.rego with OPA's tester
over the built-in bundle and the user policies, with data.loopx.spec set to
the exported spec, and prints the results as opa test does: the failures,
then PASS: n/m (FAIL, ERROR when any). -v lists every test by file.

A user policy that does not parse, or whose package no query consults (a
typo such as loopx.user.shouldrun, case C14), is reported with
file:line:col and fails the run before any test: a passing test of a
policy loopx never reads would prove nothing.

Exit codes: 0 every test passed; 1 a test failed or errored, a policy has a
problem, or (--fail-on-empty) there are no tests; 2 usage error.`,
		Example: `  loopx policy test
  loopx policy test -v --fail-on-empty
  loopx policy test --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.diskEngine()
			if err != nil {
				return err
			}
			rep, err := e.TestPolicies(cmd.Context())
			if err != nil {
				return err
			}
			empty := rep.Total == 0 && len(rep.Problems) == 0
			if err := a.print(rep, func(w io.Writer) { renderPolicyTests(w, a.stderr, rep, verbose) }); err != nil {
				return err
			}
			if empty && !a.json {
				fmt.Fprintln(a.stderr, "no tests found in loopx/policies/*_test.rego")
			}
			if !rep.OK() || (empty && failOnEmpty) {
				return reported(errs.No)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&failOnEmpty, "fail-on-empty", false, "exit 1 when there are no tests")
	c.Flags().BoolVarP(&verbose, "verbose", "v", false, "list every test, grouped by file")
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

func (a *app) policyEvalCmd() *cobra.Command {
	var inputPath, goal, agent string
	var explain bool
	c := &cobra.Command{
		Use:   "eval QUERY --input FILE [--goal G --agent A]",
		Short: "Decide a query (should_run, permission, claim, gate_answer) on a hand-written input",
		Long: `Eval evaluates QUERY (should_run, permission, claim or gate_answer) with the current spec and
policies — built-in and user — on the input in FILE ("-" reads stdin) and
prints the decision, without logging it or changing the state.

The input has the shape of a decision's input (see "loopx decide … --json"
and README): query, now, goal, agent, health, state, and the query's
request: permission, claim ({op, todo: {id, status, kind, …}}) or answer
({gate: {…}, option, actor, channel: {kind, …}}). --goal and
--agent replace input.goal and input.agent; a missing now is the current
time (set now to try another instant: eval never acts on its answer); a
missing state is the current kernel snapshot for the goal and agent at
that instant; permission may be written as a caller asks
it, {"tool": "Bash", "command": "git push", "paths": ["a.go"]}, and is
normalised as loopx decide permission does.

Exit codes: 0 the decision lets the caller go on (run, allow, defer); 1 it does not; 2 usage
error, an unknown query or a malformed input.`,
		Example: `  loopx policy eval should_run --input sunday.json --goal g1 --agent a1
  echo '{"permission": {"tool": "Bash", "command": "git push"}}' | loopx policy eval permission --input - --goal g1 --agent a1
  loopx policy eval should_run --input in.json --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if inputPath == "" {
				return usagef("policy eval needs --input FILE (- for stdin)")
			}
			var raw []byte
			var err error
			if inputPath == "-" {
				raw, err = io.ReadAll(a.stdin)
			} else {
				raw, err = os.ReadFile(inputPath)
			}
			if err != nil {
				return usagef("--input: %v", err)
			}
			e, err := a.diskEngine()
			if err != nil {
				return err
			}
			d, _, derr := e.EvalInput(cmd.Context(), args[0], raw, goal, agent)
			if errs.IsKind(derr, errs.Usage) {
				return derr
			}
			if err := a.print(d, func(w io.Writer) { renderDecision(w, d, explain) }); err != nil {
				return err
			}
			if derr != nil {
				return reported(errs.KindOf(derr))
			}
			if exitForVerdict(d.Verdict) != ExitOK {
				return reported(errs.No)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&inputPath, "input", "", "the input document (JSON); - reads stdin")
	f.StringVar(&goal, "goal", "", "replace input.goal")
	f.StringVar(&agent, "agent", "", "replace input.agent")
	f.BoolVar(&explain, "explain", false, "also show the rule and spec field behind each reason")
	return c
}
