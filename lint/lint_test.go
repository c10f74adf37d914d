package lint

import (
	"maps"

	"context"
	"encoding/json"
	"github.com/loopx-dev/loopx/policies"
	"github.com/loopx-dev/loopx/policies/regotest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestRego runs every lint rule's _test.rego through OPA's tester (as
// `opa test lint/rules` would, built-in errors raised) and requires a test
// file with at least one test beside every rule file.
func TestRego(t *testing.T) {
	mods, tests := policies.Library() // the rules compile with the policies' library
	maps.Copy(mods, Modules())
	maps.Copy(tests, TestModules())
	n := regotest.Run(t, mods, tests)
	t.Logf("%d Rego tests", n)
}

// TestRules_OneDirectoryPerRuleWithMetadata: every rule lives in
// rules/<id with _>/, its METADATA title is its id, and its violations
// take id and severity from that METADATA (never written again).
func TestRules_OneDirectoryPerRuleWithMetadata(t *testing.T) {
	rules := Rules()
	if len(rules) != 10 {
		t.Errorf("%d rules, want 10: %v", len(rules), rules)
	}
	idRe := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	for _, r := range rules {
		dir := strings.ReplaceAll(r.ID, "-", "_")
		src, ok := Modules()["lint/rules/"+dir+"/"+dir+".rego"]
		switch {
		case !ok:
			t.Errorf("rule %s: no lint/rules/%s/%s.rego", r.ID, dir, dir)
		case !idRe.MatchString(r.ID):
			t.Errorf("rule id %q is not kebab-case", r.ID)
		case len(r.Description) < 40:
			t.Errorf("rule %s: description %q too short", r.ID, r.Description)
		case r.Severity != SeverityError && r.Severity != SeverityWarning:
			t.Errorf("rule %s: severity %q", r.ID, r.Severity)
		case !strings.Contains(src, "lib.violation(rego.metadata.chain(), "):
			t.Errorf("rule %s: its violations do not take their id and severity from the METADATA (lib.violation(rego.metadata.chain(), …))", r.ID)
		case strings.Count(src, `"`+r.ID+`"`) > 0:
			t.Errorf("rule %s: its id is written again as a string: the METADATA title is the one place", r.ID)
		}
	}
}

// TestRules_DocumentedInDocs: every rule's METADATA names its section of
// docs/policies.md as its one related resource, and that page has the
// section, headed by the rule id, with the rule's severity.
func TestRules_DocumentedInDocs(t *testing.T) {
	page, err := os.ReadFile("../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range Modules() {
		m, err := ast.ParseModuleWithOpts(name, src, ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(m.Package.Path.String(), "data.loopx.lint.rules.") {
			continue
		}
		for _, a := range m.Annotations {
			if a.Scope != "package" {
				continue
			}
			want := "docs/policies.md#" + a.Title
			if len(a.RelatedResources) != 1 || a.RelatedResources[0].Ref.String() != want {
				t.Errorf("%s: related_resources %v, want one: %s", name, a.RelatedResources, want)
			}
			section := "\n### " + a.Title + "\n\n" + a.Custom["severity"].(string) + ": "
			if !strings.Contains(string(page), section) {
				t.Errorf("docs/policies.md has no section %q", section)
			}
		}
	}
}

// TestLint_MapsViolationsToFindings runs the prepared report over one input
// that breaks every spec rule and checks the Go side: severities, refs,
// locations through the locator, sorting.
func TestLint_MapsViolationsToFindings(t *testing.T) {
	spec := `{"agents": {"a1": {"host": "shell"}}, "goals": {"g1": {"objective": "x", "preset": "nope",
		"quota": {"window": "1h", "window_seconds": 3600, "min_interval": "2h", "min_interval_seconds": 7200},
		"scope": {"write": ["**"], "deny": ["loopx/**", ".loopx/**"]},
		"evidence": {"stale_after": "72h", "stale_after_seconds": 259200},
		"gates": {"merge": {"question": "ok?", "answerers": ["agent:a2"]}}}}}`
	state := map[string]any{
		"todos":    []any{map[string]any{"id": "t-1", "goal": "g1", "status": "claimed", "depends_on": []string{"t-0"}, "lease": nil}},
		"evidence": []any{map[string]any{"id": "e-1", "goal": "g1", "kind": "test", "summary": "ok", "age_seconds": 300000}},
	}
	locate := func(path []string) *Location {
		return &Location{File: "loopx/loopx.cue", Row: len(path), Col: 2}
	}
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	fs, err := Lint(context.Background(), Input{Spec: json.RawMessage(spec), State: state, Now: now, Presets: []string{"release"}}, locate)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Location.String()+" "+f.Severity+" "+f.Rule+" "+f.Ref)
	}
	want := []string{
		"loopx/loopx.cue:3:2 error goal-without-quota goals.g1.quota",
		"loopx/loopx.cue:3:2 error unknown-preset goals.g1.preset",
		"loopx/loopx.cue:4:2 error min-interval-exceeds-window goals.g1.quota.min_interval",
		"loopx/loopx.cue:5:2 error vague-gate-question goals.g1.gates.merge.question",
		"loopx/loopx.cue:6:2 error unknown-agent goals.g1.gates.merge.answerers",
		".loopx/state.db error broken-dependency todo t-1",
		".loopx/state.db warning expired-lease todo t-1",
		".loopx/state.db warning stale-evidence evidence e-1",
	}
	slicesSort := func(s []string) string { return strings.Join(s, "\n") }
	// Sorting puts the state file ("." sorts first) before loopx/.
	want = append(want[5:], want[:5]...)
	if slicesSort(got) != slicesSort(want) {
		t.Fatalf("findings:\n%s\nwant:\n%s", slicesSort(got), slicesSort(want))
	}
	if e, w := Count(fs, false); e != 6 || w != 2 {
		t.Errorf("Count = %d errors, %d warnings", e, w)
	}
	if e, w := Count(fs, true); e != 8 || w != 0 {
		t.Errorf("Count strict = %d, %d", e, w)
	}
}

func TestLint_EmptyInputFindsNothing(t *testing.T) {
	fs, err := Lint(context.Background(), Input{}, nil)
	if err != nil || len(fs) != 0 {
		t.Fatalf("%v %v", fs, err)
	}
}
