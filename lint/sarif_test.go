package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
)

// validateSARIF checks doc against the trimmed SARIF 2.1.0 schema in
// testdata with OPA's json.match_schema (draft-07), returning the schema
// violations.
func validateSARIF(t *testing.T, doc []byte) []string {
	t.Helper()
	schema, err := os.ReadFile("testdata/sarif-2.1.0-trimmed.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var d, s any
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := rego.New(rego.Query(`[ok, errs] := json.match_schema(input.doc, input.schema)`),
		rego.Input(map[string]any{"doc": d, "schema": s})).Eval(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("match_schema: %v (%d results)", err, len(rs))
	}
	if rs[0].Bindings["ok"] == true {
		return nil
	}
	var out []string
	for _, e := range rs[0].Bindings["errs"].([]any) {
		out = append(out, fmtAny(e))
	}
	return out
}

func fmtAny(v any) string { b, _ := json.Marshal(v); return string(b) }

func sampleFindings() []Finding {
	return []Finding{
		{Rule: "goal-without-quota", Severity: SeverityError, Message: "goal g1 has no quota limit", Ref: "goals.g1.quota", Location: &Location{File: "loopx/loopx.cue", Row: 3, Col: 2}},
		{Rule: "expired-lease", Severity: SeverityWarning, Message: "todo t-1 is marked claimed", Ref: "todo t-1", Location: &Location{File: ".loopx/state.db"}},
		{Rule: CategoryCredential, Severity: SeverityError, Message: `GitHub token "ghp_…"`, Location: &Location{File: "docs/my notes#1.md", Row: 7, Col: 12}},
		{Rule: "replay", Severity: SeverityWarning, Message: "decision 01J: run → deny", Ref: "decision 01J"},
		{Rule: "custom-rule", Severity: SeverityError, Message: "a rule nobody declared"},
	}
}

func TestToSARIF_ValidatesAgainstTheSchema(t *testing.T) {
	log := ToSARIF(sampleFindings(), AllRules(), "v1.2.3")
	raw, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	if errs := validateSARIF(t, raw); len(errs) > 0 {
		t.Fatalf("SARIF does not validate:\n%s\n%s", strings.Join(errs, "\n"), raw)
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "loopx" || len(run.Results) != 5 || log.Version != "2.1.0" || log.Schema == "" {
		t.Fatalf("%+v", log)
	}
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %s points at rule %d %s", r.RuleID, r.RuleIndex, run.Tool.Driver.Rules[r.RuleIndex].ID)
		}
	}
	r := run.Results[2]
	if r.Level != "error" || r.Locations[0].PhysicalLocation.ArtifactLocation.URI != "docs/my%20notes%231.md" ||
		r.Locations[0].PhysicalLocation.Region.StartLine != 7 || r.Locations[0].PhysicalLocation.Region.StartColumn != 12 {
		t.Errorf("credential result %+v", r)
	}
	if run.Results[1].Level != "warning" || run.Results[1].Locations[0].PhysicalLocation.Region != nil {
		t.Errorf("state result %+v", run.Results[1])
	}
	if len(run.Results[3].Locations) != 0 || !strings.HasSuffix(run.Results[3].Message.Text, "run → deny") {
		t.Errorf("replay result %+v", run.Results[3])
	}
}

func TestToSARIF_EmptyRunValidates(t *testing.T) {
	raw, _ := json.Marshal(ToSARIF(nil, AllRules(), ""))
	if errs := validateSARIF(t, raw); len(errs) > 0 {
		t.Fatal(errs)
	}
	if !bytes.Contains(raw, []byte(`"results":[]`)) {
		t.Fatalf("results must be an empty array: %s", raw)
	}
}

// The validator is real: documents that break the schema are refused.
func TestSARIFSchema_RefusesBrokenLogs(t *testing.T) {
	for name, doc := range map[string]string{
		"no version":       `{"runs": []}`,
		"bad version":      `{"version": "2.0.0", "runs": []}`,
		"no driver name":   `{"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}`,
		"result no text":   `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "r", "message": {}}]}]}`,
		"bad level":        `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"level": "fatal", "message": {"text": "t"}}]}]}`,
		"line zero":        `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "t"}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a"}, "region": {"startLine": 0}}}]}]}]}`,
		"unknown property": `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x", "colour": "red"}}}]}`,
	} {
		if errs := validateSARIF(t, []byte(doc)); len(errs) == 0 {
			t.Errorf("%s: validated", name)
		}
	}
}

func TestWriteText_ScanHitsArePathLineCategory(t *testing.T) {
	var b bytes.Buffer
	WriteText(&b, sampleFindings())
	want := `loopx/loopx.cue:3:2: goal-without-quota: goal g1 has no quota limit
.loopx/state.db: expired-lease (warning): todo t-1 is marked claimed
docs/my notes#1.md:7: credential: GitHub token "ghp_…"
decision 01J: replay (warning): decision 01J: run → deny
custom-rule: a rule nobody declared
`
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
