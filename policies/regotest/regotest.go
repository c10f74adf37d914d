// Package regotest runs embedded Rego bundles' tests inside `go test`
// through OPA's tester, the way `opa test DIR` would (no opa binary).
package regotest

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"
)

// Run compiles rules and tests (path → Rego v1 source) together, runs every
// test_ rule with built-in errors raised, and reports each failing or
// erroring test on t by file:row and name. It also requires every rule file
// "x.rego" to have at least one test in "x_test.rego" beside it. It returns
// the number of tests run.
func Run(t testing.TB, rules, tests map[string]string) int {
	t.Helper()
	all := maps.Clone(rules)
	maps.Copy(all, tests)
	parsed := map[string]*ast.Module{}
	for path, src := range all {
		m, err := ast.ParseModuleWithOpts(path, src, ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
		if err != nil {
			t.Fatalf("parse %s: %v", path, err)
		}
		parsed[path] = m
	}
	ch, err := tester.NewRunner().SetModules(parsed).RaiseBuiltinErrors(true).
		SetTimeout(30*time.Second).RunTests(context.Background(), nil)
	if err != nil {
		t.Fatalf("compiling the rules with their tests: %v", err)
	}
	perFile := map[string]int{}
	n := 0
	for r := range ch {
		n++
		perFile[r.Location.File]++
		switch {
		case r.Error != nil:
			t.Errorf("%s:%d: %s.%s: ERROR: %v", r.Location.File, r.Location.Row, r.Package, r.Name, r.Error)
		case r.Fail:
			t.Errorf("%s:%d: %s.%s: FAIL", r.Location.File, r.Location.Row, r.Package, r.Name)
			if len(r.Output) > 0 {
				t.Logf("%s print output:\n%s", r.Name, r.Output)
			}
		}
	}
	for path := range rules {
		if tp := strings.TrimSuffix(path, ".rego") + "_test.rego"; perFile[tp] == 0 {
			t.Errorf("%s has no test: want at least one test_ rule in %s", path, tp)
		}
	}
	return n
}
