package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/cli"
	"github.com/open-policy-agent/opa/v1/rego"
)

// TestCheck_SARIFValidatesAgainstSchema runs `loopx check --format sarif`
// on a project with findings of every kind (spec lint, policy test,
// publication scan, replay) and validates the output against the
// SARIF 2.1.0 schema (a trimmed copy of the official one, checked with
// OPA's json.match_schema).
func TestCheck_SARIFValidatesAgainstSchema(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"loopx/loopx.cue": `project: name: "sarif"
agents: a1: {host: "shell"}
goals: g1: {
	objective: "Ship the v2 API"
	agents: ["a1", "ghost"]
	scope: write: ["**"]
}
`,
		"docs/notes.md": "db at 10.0.0.12\npassword: $DB_PASSWORD\n",
	}
	policies := map[string]string{
		"loopx/policies/freeze.rego":      "package loopx.user.should_run\n\ndeny contains \"freeze\" if input.agent == \"a1\"\n",
		"loopx/policies/freeze_test.rego": "package loopx.user.should_run_test\n\ntest_fails if false\n",
	}
	write := func(files map[string]string) {
		for name, src := range files {
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(files)
	t.Setenv("LOOPX_NOW", "2026-11-29T10:00:00Z")
	var out, errb bytes.Buffer
	for _, args := range [][]string{{"todo", "add", "--goal", "g1", "Write the guide"}, {"decide", "should-run", "--goal", "g1", "--agent", "a1"}} {
		if code := cli.Run(context.Background(), append(args, "--project", root), strings.NewReader(""), &out, &errb); code != cli.ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
	write(policies)
	out.Reset()
	code := cli.Run(context.Background(), []string{"check", "--project", root, "--format", "sarif", "--replay"}, strings.NewReader(""), &out, &errb)
	if code != cli.ExitNo {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out.String(), errb.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	schemaRaw, err := os.ReadFile("../../lint/testdata/sarif-2.1.0-trimmed.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema any
	if err := json.Unmarshal(schemaRaw, &schema); err != nil {
		t.Fatal(err)
	}
	rs, err := rego.New(rego.Query(`[ok, errs] := json.match_schema(input.doc, input.schema)`),
		rego.Input(map[string]any{"doc": doc, "schema": schema})).Eval(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("match_schema: %v", err)
	}
	if rs[0].Bindings["ok"] != true {
		t.Fatalf("SARIF does not validate: %v\n%s", rs[0].Bindings["errs"], out.String())
	}
	results := doc["runs"].([]any)[0].(map[string]any)["results"].([]any)
	rules := map[string]bool{}
	for _, r := range results {
		rules[r.(map[string]any)["ruleId"].(string)] = true
	}
	for _, want := range []string{"unknown-agent", "goal-without-quota", "scope-writes-loopx", "policy-test", "private-ip", "credential", "replay"} {
		if !rules[want] {
			t.Errorf("no %s result in %v", want, rules)
		}
	}
}
