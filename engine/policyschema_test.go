package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/policies"
	"github.com/open-policy-agent/opa/v1/ast"
)

// validateAgainst validates the JSON document doc against the schema
// PolicySchema(name) gives OPA.
func validateAgainst(t *testing.T, name string, doc []byte) error {
	t.Helper()
	raw, err := PolicySchema(name)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	return rs.Validate(v)
}

// policyInput is the input document a policy sees for in: the engine's
// own conversion (inputValue), rendered as JSON.
func policyInput(t *testing.T, in input.Input) []byte {
	t.Helper()
	v, err := input.Value(in)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := ast.JSON(v)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPolicySchemas_RealInputsValidate builds inputs through the engine
// (todos with and without leases, a monitor, open gates, a round in the
// window, a permission request with a command and paths) and validates
// what the policy sees against the schemas OPA type-checks with: a field
// the engine adds to an input without its schema fails here, and so does
// one the schema requires that the engine stops filling.
func TestPolicySchemas_RealInputsValidate(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, permGateSpec+`goals: g1: todos: watch: {title: "Watch CI", kind: "monitor", every: "15m"}
goals: g1: quota: rounds: 5
`)
	addTodos(t, e, "Write the migration guide")
	st, err := e.StartRound(context.Background(), "g1", "claude")
	if err != nil || st.Round == nil {
		t.Fatalf("start: %+v %v", st.Decision, err)
	}
	if _, err := e.FinishRound(context.Background(), st.Round.ID, rounds.FinishRequest{Outcome: "progress"}); err != nil {
		t.Fatal(err)
	}
	todos := addTodos(t, e, "Fix the flaky test", "Write the changelog")
	if _, err := e.ClaimTodo(lease.ClaimRequest{Todo: todos[0].ID, Agent: "claude"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Ship the hotfix to production now?", BlocksTodo: todos[1].ID}); err != nil {
		t.Fatal(err)
	}
	c.Advance(20 * time.Minute)

	should, err := e.buildInput(Request{Query: query.ShouldRun, Goal: "g1", Agent: "claude"}, e.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(should.State.Todos) < 3 || len(should.State.Gates) < 2 || !slices.ContainsFunc(should.State.Todos, func(t input.TodoFacts) bool { return t.Lease != nil }) {
		t.Fatalf("the should_run input lacks what it should exercise: %d todos, %d gates", len(should.State.Todos), len(should.State.Gates))
	}
	pr := toolcall.Read(e.root, e.loopxStateDir(), toolcall.Call{Tool: "Bash", Command: "git add api/v2.go && git commit -m v2 && git push > docs/push.log"})
	perm, err := e.buildInput(Request{Query: query.Permission, Goal: "g1", Agent: "claude", Permission: pr}, e.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(perm.Permission.Paths) == 0 || len(perm.Permission.Commands) < 3 {
		t.Fatalf("the permission input lacks what it should exercise: %+v", perm.Permission)
	}
	edit, err := e.buildInput(Request{Query: query.Permission, Goal: "g1", Agent: "claude",
		Permission: toolcall.Read(e.root, e.loopxStateDir(), toolcall.Call{Tool: "Edit", Paths: []string{"api/v2.go", "../outside.txt"}})}, e.Now())
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, schema string
		in           input.Input
	}{
		{"should_run", "should_run", should},
		{"permission bash", "permission", perm},
		{"permission edit", "permission", edit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := policyInput(t, tc.in)
			if err := validateAgainst(t, tc.schema, doc); err != nil {
				t.Fatalf("the input does not match its schema: %v", err)
			}
		})
	}
	if err := validateAgainst(t, rulebook.SpecSchemaName, e.rules.spec.JSON); err != nil {
		t.Fatalf("data.loopx.spec does not match its schema: %v", err)
	}

	// The schemas are closed where a typo must be an error, and each
	// query's input carries only its own request fields.
	for _, tc := range []struct {
		schema string
		in     input.Input
		edit   func(map[string]any)
	}{
		{"should_run", should, func(m map[string]any) { m["permission"] = perm.Permission }},
		{"permission", perm, func(m map[string]any) { m["permission"].(map[string]any)["comand"] = "git push" }},
		{"permission", perm, func(m map[string]any) { delete(m["permission"].(map[string]any), "command") }},
		{"should_run", should, func(m map[string]any) {
			m["state"].(map[string]any)["todos"].([]any)[0].(map[string]any)["titel"] = "x"
		}},
		{rulebook.SpecSchemaName, input.Input{}, nil},
	} {
		var m map[string]any
		doc := policyInput(t, tc.in)
		if tc.edit == nil {
			doc = e.rules.spec.JSON
		}
		if err := json.Unmarshal(doc, &m); err != nil {
			t.Fatal(err)
		}
		if tc.edit != nil {
			tc.edit(m)
		} else {
			m["project"].(map[string]any)["nam"] = "x"
		}
		b, _ := json.Marshal(m)
		if err := validateAgainst(t, tc.schema, b); err == nil {
			t.Errorf("%s: an input with a stray or missing field validates", tc.schema)
		}
	}
}

// TestPolicySchemas_BuiltinBundleTypeChecks compiles the built-in bundle
// and its tests with the schemas and capabilities user policies get: every
// reference the bundle makes to input and data.loopx.spec is declared.
func TestPolicySchemas_BuiltinBundleTypeChecks(t *testing.T) {
	t.Parallel()
	parsed, err := policySchemas.Bundle(nil)
	if err != nil {
		t.Fatal(err)
	}
	for path, src := range policies.TestModules() {
		m, err := ast.ParseModuleWithOpts(path, src, ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
		if err != nil {
			t.Fatal(err)
		}
		parsed[path] = m
	}
	c, err := policySchemas.Compiler()
	if err != nil {
		t.Fatal(err)
	}
	if c.Compile(parsed); c.Failed() {
		t.Fatal(c.Errors)
	}
	// The schemas do reach the built-in packages.
	bad := map[string]*ast.Module{}
	for path, m := range parsed {
		bad[path] = m
	}
	bad["loopx/run/typo.rego"] = ast.MustParseModuleWithOpts("package loopx.run\n\ntypo if input.permission.command\n", ast.ParserOptions{RegoVersion: ast.RegoV1})
	c, _ = policySchemas.Compiler()
	if c.Compile(bad); !c.Failed() || !strings.Contains(c.Errors.Error(), "undefined ref: input.permission.command") {
		t.Fatalf("a should_run built-in reading input.permission compiles: %v", c.Errors)
	}
}

// TestUserPolicies_UndeclaredFieldIsATypeError: a user rule that reads a field no input or
// spec declares (input.permission.comand) is reported by check
// (CheckPolicies), policy test (TestPolicies) and every decision (deny,
// policy_error), at its file:line:col.
func TestUserPolicies_UndeclaredFieldIsATypeError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, src, want string }{
		{"permission typo", "package loopx.user.permission\n\ndeny contains \"push\" if {\n\tstartswith(input.permission.comand, \"git push\")\n}\n",
			"typed.rego:4:13: rego_type_error: undefined ref: input.permission.comand (did you mean input.permission.command?"},
		{"nested typo", "package loopx.user.should_run\n\ndeny contains \"x\" if input.state.quota.round > 3\n",
			"typed.rego:3:22: rego_type_error: undefined ref: input.state.quota.round (did you mean input.state.quota.rounds?"},
		{"other query's field", "package loopx.user.should_run\n\ndeny contains \"x\" if input.permission.tool == \"Bash\"\n",
			"typed.rego:3:22: rego_type_error: undefined ref: input.permission.tool (input.permission is only in the input of the permission query, package loopx.user.permission; fields of input: agent, goal, health, now, query, state)"},
		{"spec typo", "package loopx.user.should_run\n\ndeny contains \"x\" if data.loopx.spec.project.nme == \"x\"\n",
			"typed.rego:3:22: rego_type_error: undefined ref: data.loopx.spec.project.nme (did you mean data.loopx.spec.project.name?"},
		{"helper library", "package loopx.user.lib\n\nfrozen if input.agnet == \"a2\"\n",
			"typed.rego:3:11: rego_type_error: undefined ref: input.agnet (did you mean input.agent?"},
		{"wrong type", "package loopx.user.permission\n\ndeny contains \"x\" if input.permission.paths.path == \"a\"\n",
			"typed.rego:3:22: rego_type_error: undefined ref: input.permission.paths.path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, c := newEngine(t, permSpec)
			writeUserPolicy(t, e, "typed.rego", tc.src)
			writeUserPolicy(t, e, "typed_test.rego", "package loopx.user.typed_test\n\ntest_nothing if true\n")
			e = reopen(t, e, c)
			probs, err := e.CheckPolicies()
			if err != nil || len(probs) != 1 || !strings.Contains(probs[0].String(), tc.want) {
				t.Fatalf("check: %v %v, want %q", probs, err, tc.want)
			}
			rep, err := e.TestPolicies(context.Background())
			if err != nil || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].String(), tc.want) || rep.Total != 0 {
				t.Fatalf("policy test: %+v %v", rep, err)
			}
			d := permission(t, e, "claude", toolcall.Call{Tool: "Edit", Paths: []string{"api/x.go"}})
			if d.Verdict != "deny" || !d.HasReason("policy_error") || !strings.Contains(d.Reasons[0].Message, "undefined ref") {
				t.Fatalf("decision: %s %+v", d.Verdict, d.Reasons)
			}
		})
	}

	// Right names type-check, in every package a user policy may use.
	e, c := newEngine(t, permSpec)
	writeUserPolicy(t, e, "ok.rego", `package loopx.user.permission

import data.loopx.user.lib

deny contains "no pushes to main" if {
	some cmd in lib.pushes
	lib.main_branch in split(input.permission.command, " ")
	data.loopx.spec.goals[input.goal].quota.window == "24h"
	input.state.goal.status == "active"
}
`)
	writeUserPolicy(t, e, "lib.rego", `package loopx.user.lib

main_branch := "main"

pushes contains cmd if {
	some cmd in input.permission.commands
	startswith(cmd, "git push")
}
`)
	writeUserPolicy(t, e, "ok_test.rego", `package loopx.user.permission_test

import data.loopx.user.permission

test_push_main if {
	permission.deny["no pushes to main"] with input as {"goal": "g1", "permission": {"command": "git push origin main", "commands": ["git push origin main"]}, "state": {"goal": {"status": "active"}}}
		with data.loopx.spec as {"goals": {"g1": {"quota": {"window": "24h"}}}}
}
`)
	e = reopen(t, e, c)
	if probs, err := e.CheckPolicies(); err != nil || len(probs) != 0 {
		t.Fatalf("check: %v %v", probs, err)
	}
	if rep, err := e.TestPolicies(context.Background()); err != nil || !rep.OK() || rep.Pass != 1 {
		t.Fatalf("policy test: %+v %v", rep, err)
	}
	d := permission(t, e, "claude", toolcall.Call{Tool: "Bash", Command: "git push origin main"})
	if d.Verdict != "deny" || d.Reasons[0].Message != "no pushes to main" {
		t.Fatalf("decision: %s %+v", d.Verdict, d.Reasons)
	}
}

func TestPolicySchema_Names(t *testing.T) {
	t.Parallel()
	if got := rulebook.SchemaNames(); !slices.Equal(got, []string{"claim", "gate_answer", "permission", "should_run", "spec"}) {
		t.Errorf("names = %v", got)
	}
	for _, n := range rulebook.SchemaNames() {
		b, err := PolicySchema(n)
		if err != nil || !json.Valid(b) {
			t.Errorf("%s: %v", n, err)
		}
	}
	if _, err := PolicySchema("shouldrun"); err == nil || !strings.Contains(err.Error(), "known: claim, gate_answer, permission, should_run, spec") {
		t.Errorf("unknown name: %v", err)
	}
}

// TestPolicySchema_EveryFieldIsDescribed: each property of each schema
// carries its Go field's doc comment (`loopx policy schema` is the
// reference of what a policy sees). A field added without a doc comment,
// or a type moved out of the embedded sources, fails here.
func TestPolicySchema_EveryFieldIsDescribed(t *testing.T) {
	t.Parallel()
	var walk func(name, path string, s map[string]any)
	walk = func(name, path string, s map[string]any) {
		props, _ := s["properties"].(map[string]any)
		for k, v := range props {
			p := v.(map[string]any)
			if d, _ := p["description"].(string); d == "" {
				t.Errorf("%s: %s.%s has no description: give its Go struct field a doc comment (and give its source to policySchemas in engine/rules.go)", name, path, k)
			}
			walk(name, path+"."+k, p)
			if items, ok := p["items"].(map[string]any); ok {
				walk(name, path+"."+k+"[_]", items)
			}
			if m, ok := p["additionalProperties"].(map[string]any); ok {
				walk(name, path+"."+k+"[_]", m)
			}
		}
	}
	for _, n := range rulebook.SchemaNames() {
		b, _ := PolicySchema(n)
		var s map[string]any
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		root := "input"
		if n == rulebook.SpecSchemaName {
			root = "data.loopx.spec"
		}
		if d, _ := s["description"].(string); d == "" {
			t.Errorf("%s has no description", n)
		}
		walk(n, root, s)
	}
}
