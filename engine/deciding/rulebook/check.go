package rulebook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/policies"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Problem is a user policy problem `loopx check` and `loopx policy
// test` report: a file that does not parse, a package no query consults
// (a typo such as loopx.user.shouldrun), a compile error, or a rule nothing reaches.
type Problem struct {
	// File is relative to the project root ("loopx/policies/weekend.rego");
	// Row and Col are 1-based.
	File string `json:"file"`
	Row  int    `json:"row"`
	Col  int    `json:"col"`
	// Code is policy_error (parse), policy_unreachable (package),
	// unreachable_rule, or OPA's compile error code (rego_type_error, …).
	Code    string `json:"code"`
	Message string `json:"message"`
	// Rule is the rule at the position ("deny"), "" when none.
	Rule string `json:"rule,omitempty"`
}

// String is "file:row:col: code: message (rule R)".
func (p Problem) String() string {
	s := fmt.Sprintf("%s:%d:%d: %s: %s", p.File, p.Row, p.Col, p.Code, p.Message)
	if p.Rule != "" {
		s += " (rule " + p.Rule + ")"
	}
	return s
}

// Policies reads every user policy and test of b and reports every file
// that does not parse or declares a package loopx refuses — unlike Load,
// which stops at the first. It returns the modules that are usable,
// sorted by path. Errors: I/O errors.
func (b Book) Policies() ([]Module, []Problem, error) {
	var mods []Module
	var probs []Problem
	err := b.Walk(func(m Module, parsed *ast.Module, perr error) error {
		if perr != nil {
			probs = append(probs, parseProblems(m.Path, perr)...)
			return nil
		}
		if err := checkUserPackage(m, parsed); err != nil {
			probs = append(probs, problemOf(err))
			return nil
		}
		mods = append(mods, m)
		return nil
	})
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	sortProblems(probs)
	return mods, probs, err
}

func parseProblems(path string, err error) []Problem {
	var errs ast.Errors
	if !errors.As(err, &errs) || len(errs) == 0 {
		return []Problem{{File: path, Row: 1, Col: 1, Code: "policy_error", Message: err.Error()}}
	}
	out := make([]Problem, 0, len(errs))
	for _, e := range errs {
		p := Problem{File: path, Row: 1, Col: 1, Code: "policy_error", Message: e.Message}
		if e.Code != "" {
			p.Message = e.Code + ": " + e.Message
		}
		if e.Location != nil {
			p.Row, p.Col = e.Location.Row, e.Location.Col
		}
		out = append(out, p)
	}
	return out
}

func problemOf(err error) Problem {
	if pe := AsError(err); pe != nil {
		return Problem{File: pe.Location.File, Row: pe.Location.Line, Col: pe.Location.Col, Code: pe.Code, Message: pe.Message}
	}
	return Problem{Code: "policy_error", Message: err.Error()}
}

func sortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return a.Col - b.Col
	})
}

// Check compiles every policy — the built-in bundle and the
// usable user policies, with every compiler check — and reports, besides
// Policies' problems, each compile error at its file:line:col with the
// rule it is in, and each user rule that no query can reach: loopx reads
// only the user rules the built-in bundle refers to
// (data.loopx.user.should_run.deny and .warn, data.loopx.user.permission.deny,
// …), and the rules those refer to. Errors: I/O errors; the schemas'.
func (b Book) Check() ([]Problem, error) {
	mods, probs, err := b.Policies()
	if err != nil {
		return probs, err
	}
	var policyMods []Module
	for _, m := range mods {
		if !m.Test {
			policyMods = append(policyMods, m)
		}
	}
	if len(policyMods) == 0 {
		return probs, nil
	}
	parsed, err := b.Schemas.Bundle(policyMods)
	if err != nil {
		return probs, err
	}
	c, err := b.Schemas.Compiler()
	if err != nil {
		return probs, err
	}
	c.Compile(parsed)
	if c.Failed() {
		b.Schemas.Explain(c.Errors)
		for _, ce := range c.Errors {
			probs = append(probs, compileProblem(ce, parsed, policyMods))
		}
		sortProblems(probs)
		return probs, nil
	}
	probs = append(probs, unreachableRules(c, parsed)...)
	sortProblems(probs)
	return probs, nil
}

// userRef is a reference to a user rule in a compile error's message
// ("data.loopx.user.should_run.deny[__local639__]").
var userRef = regexp.MustCompile(`data\.loopx\.user\.([a-z_]+)\.([A-Za-z_][A-Za-z0-9_]*)`)

// compilerLocal is a variable the compiler made up ("[__local639__]"):
// its number says nothing to a user and changes with the built-in bundle.
var compilerLocal = regexp.MustCompile(`\[__local\d+__\]`)

// compileProblem is the Problem of the compile error ce, at its
// file:line:col with the rule there. An error the compiler finds in the
// built-in bundle where it reads a user rule (a deny that is not a set:
// `deny := 1`) is reported at that user rule in the user's file, naming
// the built-in position, so the user sees what to fix.
func compileProblem(ce *ast.Error, parsed map[string]*ast.Module, mods []Module) Problem {
	p := Problem{Code: ce.Code, Message: ce.Message}
	if ce.Location == nil {
		return p
	}
	p.File, p.Row, p.Col = ce.Location.File, ce.Location.Row, ce.Location.Col
	p.Rule = ruleAt(parsed[p.File], p.Row)
	if slices.ContainsFunc(mods, func(m Module) bool { return m.Path == p.File }) {
		return p
	}
	sub := userRef.FindStringSubmatch(ce.Message)
	if sub == nil {
		return p
	}
	pkg := "loopx.user." + sub[1]
	for _, m := range mods {
		pm := parsed[m.Path]
		if m.Test || m.Package != pkg || pm == nil {
			continue
		}
		for _, r := range pm.Rules {
			if r.Location == nil || r.Head.Name.String() != sub[2] && r.Head.Ref().String() != sub[2] {
				continue
			}
			p.Message = fmt.Sprintf("%s is not what loopx reads (%s: a set of reasons, `%s contains r if …`): the built-in policy at %s:%d:%d: %s",
				sub[2], "data."+pkg+"."+sub[2], sub[2], p.File, p.Row, p.Col, compilerLocal.ReplaceAllString(ce.Message, ""))
			p.File, p.Row, p.Col, p.Rule = m.Path, r.Location.Row, r.Location.Col, sub[2]
			return p
		}
	}
	return p
}

// ruleAt names the rule of m that starts at or above row.
func ruleAt(m *ast.Module, row int) string {
	if m == nil {
		return ""
	}
	name, best := "", 0
	for _, r := range m.Rules {
		if l := r.Location; l != nil && l.Row <= row && l.Row >= best {
			name, best = r.Head.Ref().String(), l.Row
		}
	}
	return name
}

var userRoot = ast.MustParseRef("data.loopx.user")

// unreachableRules lists the user rules that no reference from the
// built-in bundle reaches, directly or through other user rules.
func unreachableRules(c *ast.Compiler, parsed map[string]*ast.Module) []Problem {
	builtin := policies.Modules()
	var frontier []ast.Ref
	for path, m := range c.Modules {
		if _, ok := builtin[path]; !ok {
			continue
		}
		ast.WalkRefs(m, func(r ast.Ref) bool {
			if r.HasPrefix(userRoot) {
				frontier = append(frontier, r.GroundPrefix())
			}
			return false
		})
	}
	consulted := map[string]bool{}
	for _, r := range frontier {
		consulted[r.String()] = true
	}
	type userRule struct {
		path string
		rule *ast.Rule
		ref  ast.Ref
	}
	var rules []userRule
	for path, m := range c.Modules {
		if _, ok := builtin[path]; ok {
			continue
		}
		for _, r := range m.Rules {
			rules = append(rules, userRule{path: path, rule: r, ref: r.Ref().GroundPrefix()})
		}
	}
	reached := make([]bool, len(rules))
	for len(frontier) > 0 {
		ref := frontier[0]
		frontier = frontier[1:]
		for i, ur := range rules {
			if reached[i] || !(ur.ref.HasPrefix(ref) || ref.HasPrefix(ur.ref)) {
				continue
			}
			reached[i] = true
			ast.WalkRefs(ur.rule, func(r ast.Ref) bool {
				if r.HasPrefix(userRoot) {
					frontier = append(frontier, r.GroundPrefix())
				}
				return false
			})
		}
	}
	entries := slices.Sorted(maps.Keys(consulted))
	var out []Problem
	seen := map[string]bool{}
	for i, ur := range rules {
		if reached[i] {
			continue
		}
		loc := ur.rule.Location
		name := ur.rule.Head.Ref().String()
		if loc == nil || seen[ur.path+"\x00"+name] {
			continue
		}
		seen[ur.path+"\x00"+name] = true
		msg := fmt.Sprintf("rule %s is never consulted: loopx reads %s and what they refer to", ur.ref, strings.Join(entries, ", "))
		if len(entries) == 0 {
			msg = fmt.Sprintf("rule %s is never consulted: no built-in query reads data.loopx.user", ur.ref)
		}
		if pkg := strings.TrimPrefix(parsed[ur.path].Package.Path.String(), "data."); strings.Count(pkg, ".") > 2 && (name == "deny" || name == "warn") {
			msg += fmt.Sprintf(" (a %s in package %s is not read: put it in package loopx.user.<query> itself)", name, pkg)
		}
		out = append(out, Problem{File: ur.path, Row: loc.Row, Col: loc.Col, Code: "unreachable_rule", Message: msg, Rule: name})
	}
	return out
}

// Bundle parses what a policy check compiles: the built-in bundle's
// modules (the adoption comparison left out: it reads two specs, not a
// decision's input), mods (usable user modules, as Policies returns them)
// and the schema annotation modules (Modules), keyed by path, with their
// METADATA processed (schema annotations type-check). Errors: a module
// that does not parse; a schema that cannot be built.
func (s *Schemas) Bundle(mods []Module) (map[string]*ast.Module, error) {
	opts := ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true}
	parsed, err := s.Modules()
	if err != nil {
		return nil, err
	}
	for path, src := range policies.Modules() {
		if strings.HasPrefix(path, "loopx/adopt/") {
			continue // compares two specs (input.old, input.new), not a decision input
		}
		m, err := ast.ParseModuleWithOpts(path, src, opts)
		if err != nil {
			return nil, fmt.Errorf("built-in policy %s: %w", path, err)
		}
		parsed[path] = m
	}
	for _, m := range mods {
		pm, err := ast.ParseModuleWithOpts(m.Path, m.Source, opts)
		if err != nil {
			return nil, err
		}
		parsed[m.Path] = pm
	}
	return parsed, nil
}

// TestResult is one Rego test of the project.
type TestResult struct {
	// File and Row locate the test rule.
	File string `json:"file"`
	Row  int    `json:"row"`
	// Package is the test's package ("data.loopx.user.should_run_test").
	Package string `json:"package"`
	// Name is the test rule's name ("test_weekend_denies").
	Name string `json:"name"`
	// Status is "pass", "fail", "error" or "skip".
	Status string `json:"status"`
	// Error is the evaluation error of an "error" test.
	Error string `json:"error,omitempty"`
	// Output is what the test printed (print()).
	Output string `json:"output,omitempty"`
	// DurationMS is how long it ran, in milliseconds.
	DurationMS float64 `json:"duration_ms"`
}

// TestReport is the result of Test.
type TestReport struct {
	Pass   int `json:"pass"`
	Fail   int `json:"fail"`
	Errors int `json:"error"`
	Skip   int `json:"skip"`
	Total  int `json:"total"`
	// Results are the tests, sorted by file and row.
	Results []TestResult `json:"results"`
	// Problems are user policies that cannot be loaded or compiled; the
	// tests did not run when there are any.
	Problems []Problem `json:"problems"`
}

// OK is true when no test failed or errored and no policy has a problem.
func (r TestReport) OK() bool { return r.Fail == 0 && r.Errors == 0 && len(r.Problems) == 0 }

// Test runs the project's Rego tests (loopx/policies/**_test.rego) with
// OPA's tester, as `opa test` would, over the built-in bundle and the user
// policies, with data.loopx.spec set to spec (the exported spec, JSON; {}
// when nil) and built-in errors raised. Any problem Policies
// finds (a file that does not parse, a package no query consults) is
// reported instead of running the tests: a test of a never-consulted
// policy passing would prove nothing. So is every compile error,
// tests or not: a reference to a field the input or spec schema does not
// declare, a forbidden built-in. Each test runs under the
// policy deadline (spec field project.policy_deadline). Errors: I/O
// errors; the schemas'; spec that is not a JSON object.
func (b Book) Test(ctx context.Context, spec []byte, deadline time.Duration) (TestReport, error) {
	rep := TestReport{Results: []TestResult{}, Problems: []Problem{}}
	mods, probs, err := b.Policies()
	if err != nil {
		return rep, err
	}
	if len(probs) > 0 {
		rep.Problems = probs
		return rep, nil
	}
	if len(mods) == 0 {
		return rep, nil
	}
	// Compiled even without tests: a policy that does not compile (an
	// unknown input field, a forbidden built-in) is a problem either way.
	parsed, err := b.Schemas.Bundle(mods)
	if err != nil {
		return rep, err
	}
	compiler, err := b.Schemas.Compiler()
	if err != nil {
		return rep, err
	}
	specDoc := map[string]any{}
	if spec != nil {
		if err := json.Unmarshal(spec, &specDoc); err != nil {
			return rep, err
		}
	}
	store := inmem.NewFromObject(map[string]any{"loopx": map[string]any{"spec": specDoc}})
	// Each test runs under the deadline a decision has: a test that needs
	// longer tests a policy whose decisions would fail closed.
	ch, err := tester.NewRunner().SetCompiler(compiler.WithEnablePrintStatements(true)).SetModules(parsed).
		SetStore(store).RaiseBuiltinErrors(true).CapturePrintOutput(true).SetTimeout(deadline).RunTests(ctx, nil)
	if err != nil {
		var errs ast.Errors
		if !errors.As(b.Schemas.Explain(err), &errs) {
			return rep, err
		}
		for _, ce := range errs {
			rep.Problems = append(rep.Problems, compileProblem(ce, parsed, mods))
		}
		sortProblems(rep.Problems)
		return rep, nil
	}
	for r := range ch {
		res := TestResult{Package: r.Package, Name: r.Name, Output: string(r.Output),
			DurationMS: float64(r.Duration.Microseconds()) / 1000}
		if r.Location != nil {
			res.File, res.Row = r.Location.File, r.Location.Row
		}
		switch {
		case r.Skip:
			res.Status = "skip"
			rep.Skip++
		case r.Error != nil:
			res.Status, res.Error = "error", r.Error.Error()
			if topdown.IsCancel(r.Error) {
				res.Error = fmt.Sprintf("stopped at the policy deadline of %s (spec field project.policy_deadline): %s", deadline, res.Error)
			}
			rep.Errors++
		case r.Fail:
			res.Status = "fail"
			rep.Fail++
		default:
			res.Status = "pass"
			rep.Pass++
		}
		rep.Results = append(rep.Results, res)
	}
	rep.Total = len(rep.Results)
	slices.SortStableFunc(rep.Results, func(a, b TestResult) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Row - b.Row
	})
	return rep, nil
}
