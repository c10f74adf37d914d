package policies

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/policies/regotest"
)

// TestRego_BesideUserPolicies runs the bundle's tests as a plain
// `opa test policies/ loopx/policies/` would, over the built-in bundle
// together with user policies: the examples of docs/policies.md with their
// test file (which must pass too, with no spec loopx would set), and user
// policies that deny and warn on every query. The built-in tests decide
// with no user policy (data.loopx.user replaced), so neither set changes
// their result; before, a user policy in the same run failed 132 of them.
func TestRego_BesideUserPolicies(t *testing.T) {
	t.Parallel() // reads only; compiles its own modules
	examples := docsRego(t, filepath.Join("..", "docs", "policies.md"))
	if len(examples) != 4 {
		t.Fatalf("docs/policies.md: %d rego blocks, want the 3 example policies and their test file", len(examples))
	}
	every := map[string]string{}
	files, err := filepath.Glob(filepath.Join("testdata", "every_user_rule", "*.rego"))
	if err != nil || len(files) != 4 {
		t.Fatalf("testdata/every_user_rule: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		every[filepath.ToSlash(f)] = string(b)
	}
	for name, user := range map[string]map[string]string{"docs examples": examples, "a user policy against everything": every} {
		t.Run(name, func(t *testing.T) {
			tests := TestModules()
			maps.Copy(tests, user)
			n := regotest.Run(t, Modules(), tests)
			if want := len(TestModules()); n < want {
				t.Errorf("%d tests ran, want at least the bundle's", n)
			}
		})
	}
}

// docsRego returns the ```rego blocks of the Markdown file at path, each
// as a module named after the package it declares and its position.
func docsRego(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pkg := regexp.MustCompile(`(?m)^package ([a-z_.]+)$`)
	out := map[string]string{}
	for i, block := range regexp.MustCompile("(?s)```rego\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		m := pkg.FindStringSubmatch(block[1])
		if m == nil {
			t.Fatalf("%s: rego block %d declares no package", path, i+1)
		}
		name := fmt.Sprintf("docs/%s_%d.rego", strings.ReplaceAll(m[1], ".", "_"), i+1)
		if strings.HasSuffix(m[1], "_test") {
			name = fmt.Sprintf("docs/%d_test.rego", i+1)
		}
		out[name] = block[1]
	}
	return out
}
