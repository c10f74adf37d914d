package policies

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/policies/internal/entries"
	"github.com/loopx-dev/loopx/policies/regotest"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// TestRego runs every *_test.rego of the bundle (as `opa test policies/`
// would, with built-in errors raised) and requires each policy file to have
// at least one test in its _test.rego beside it.
func TestRego(t *testing.T) {
	t.Parallel() // reads only; compiles its own modules
	n := regotest.Run(t, Modules(), TestModules())
	t.Logf("%d Rego tests", n)
}

func TestHash(t *testing.T) {
	if h := Hash(); !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(h) || h != Hash() {
		t.Fatalf("Hash() = %q, want a stable sha256:<hex>", h)
	}
	for path := range Modules() {
		if strings.HasSuffix(path, "_test.rego") {
			t.Errorf("Modules() includes test %s", path)
		}
	}
	if len(TestModules()) == 0 {
		t.Fatal("TestModules() empty")
	}
}

// TestShouldRun_UserModule compiles the bundle without and with a real user
// module (package loopx.user.should_run): both must prepare, and the user's
// deny and warn must reach the decision.
func TestShouldRun_UserModule(t *testing.T) {
	in := benchInput(3)
	d := decide(t, nil, in)
	if d["verdict"] != "run" {
		t.Fatalf("without user policies: verdict %v, want run: %v", d["verdict"], d)
	}
	user := map[string]string{"loopx/policies/freeze.rego": `package loopx.user.should_run
deny contains {"code": "freeze", "message": "release freeze"} if input.agent == "codex"
warn contains "evidence is stale"
`}
	d = decide(t, user, in)
	if d["verdict"] != "deny" || fmt.Sprint(d["reasons"]) != fmt.Sprint([]any{
		map[string]any{"code": "freeze", "message": "release freeze", "ref": "", "rule": "data.loopx.user.should_run.deny"},
		map[string]any{"code": "user_warning", "message": "evidence is stale", "ref": "", "rule": "data.loopx.user.should_run.warn"},
	}) {
		t.Fatalf("with a user deny: %v", d)
	}
	if d := decide(t, nil, map[string]any{}); d["verdict"] != "deny" {
		t.Fatalf("empty input: verdict %v, want deny", d["verdict"])
	}
}

func decide(t *testing.T, extra map[string]string, input any) map[string]any {
	t.Helper()
	pq, err := prepare(extra)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := pq.Eval(context.Background(), rego.EvalInput(input))
	if err != nil || len(rs) != 1 {
		t.Fatalf("eval: %v (%d results)", err, len(rs))
	}
	return rs[0].Expressions[0].Value.(map[string]any)
}

func prepare(extra map[string]string) (rego.PreparedEvalQuery, error) {
	opts := []func(*rego.Rego){
		rego.Query("data.loopx.run.decision"),
		rego.Store(inmem.NewFromObject(map[string]any{"loopx": map[string]any{"spec": benchSpec()}})),
		rego.StrictBuiltinErrors(true),
	}
	for path, src := range Modules() {
		opts = append(opts, rego.Module(path, src))
	}
	for path, src := range extra {
		opts = append(opts, rego.Module(path, src))
	}
	return rego.New(opts...).PrepareForEval(context.Background())
}

func benchSpec() map[string]any {
	return jsonValue(`{"project": {"name": "acme"},
		"agents": {"codex": {"host": "codex", "role": "executor", "mode": "active"}},
		"goals": {"g1": {"objective": "Ship v2", "agents": [],
			"quota": {"window": "24h", "window_seconds": 86400, "rounds": 24, "tokens": 2000000, "cost_usd": 20,
				"min_interval": "10m", "min_interval_seconds": 600, "compute": 1},
			"stall": {"max_no_progress": 3}}}}`)
}

// benchInput is a should_run input with n todos of every kind and state.
func benchInput(n int) map[string]any {
	in := jsonValue(`{"query": "should_run", "now": "2026-11-29T10:00:00Z", "goal": "g1", "agent": "codex",
		"health": {"store": "", "spec": "", "policy": ""},
		"state": {"revision": 4211, "goal_revision": 97,
			"goal": {"id": "g1", "in_spec": true, "status": "active", "reason": ""},
			"agent": {"id": "codex", "known": true, "goals": [], "role": "executor", "mode": "active"},
			"gates": [{"id": "g-1", "question": "Merge?", "scope": {"kind": "action"}, "guards": ["git.merge"], "expires_at": ""},
				{"id": "g-2", "question": "Touch t-0007?", "scope": {"kind": "todo", "todos": ["t-0007"]}, "expires_at": ""}],
			"quota": {"window_start": "2026-11-28T10:00:00Z", "rounds": 5, "tokens": 120000, "cost_usd": 1.5,
				"compute_seconds": 3600, "compute_limit_seconds": 86400, "resets_at": "2026-11-29T11:00:00Z",
				"last_round_at": "2026-11-29T09:00:00Z", "next_round_at": "2026-11-29T09:10:00Z", "min_interval_elapsed": true},
			"progress": {"consecutive_no_progress": 1, "last_outcome": "progress", "last_todo": "t-0003", "changed_since_last": true}}}`)
	todos := make([]any, n)
	for i := range n {
		td := map[string]any{"id": fmt.Sprintf("t-%04d", i), "title": fmt.Sprintf("todo %d", i), "kind": "task",
			"status": "open", "priority": i % 5, "created_at": fmt.Sprintf("2026-11-%02dT10:00:00Z", 1+i%28),
			"deps_open": nil, "lease": nil, "due": false, "next_due_at": "", "labels": []any{"area"}}
		switch i % 7 {
		case 1:
			td["status"], td["lease"] = "claimed", map[string]any{"holder": "claude", "live": true, "expires_at": "2026-11-29T10:40:00Z", "version": 4, "epoch": 2}
		case 2:
			td["deps_open"] = []any{fmt.Sprintf("t-%04d", i-1)}
		case 3:
			td["kind"], td["next_due_at"] = "monitor", "2026-11-29T10:15:00Z"
		case 4:
			td["kind"] = "action"
		}
		todos[i] = td
	}
	in["state"].(map[string]any)["todos"] = todos
	return in
}

func jsonValue(s string) map[string]any {
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

// BenchmarkPrepare is the per-process cost of compiling the bundle.
func BenchmarkPrepare(b *testing.B) {
	for b.Loop() {
		if _, err := prepare(nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvalParsed is BenchmarkEval with the input converted to an
// ast.Value once: the policy's own share of an evaluation.
func BenchmarkEvalParsed(b *testing.B) {
	pq, err := prepare(nil)
	if err != nil {
		b.Fatal(err)
	}
	in := ast.MustInterfaceToValue(benchInput(200))
	for b.Loop() {
		if rs, err := pq.Eval(context.Background(), rego.EvalParsedInput(in)); err != nil || len(rs) != 1 {
			b.Fatal(err, len(rs))
		}
	}
}

// BenchmarkEval is one should_run evaluation with 200 todos, input given as
// decoded JSON (converted by OPA on every call).
func BenchmarkEval(b *testing.B) {
	pq, err := prepare(nil)
	if err != nil {
		b.Fatal(err)
	}
	in := benchInput(200)
	for b.Loop() {
		rs, err := pq.Eval(context.Background(), rego.EvalInput(in))
		if err != nil || len(rs) != 1 {
			b.Fatal(err, len(rs))
		}
	}
}

// TestEntryModules_UpToDate recomputes, with OPA's compiler, which
// modules each entry rule reaches (entries.Index) and requires
// entries_gen.go to say the same: a module or annotation changed without
// `go generate ./policies` fails here, before a query compiles too little.
func TestEntryModules_UpToDate(t *testing.T) {
	index, err := entries.Index(Modules())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(index, entryModules) {
		t.Fatalf("entries_gen.go is stale: run go generate ./policies\n got: %v\nwant: %v", entryModules, index)
	}
}

// TestEntryModules_CompileAlone compiles each entry rule's modules as the
// engine prepares them, with every compiler check (an undefined function
// is an error), and checks what the rule graph leaves out: the acting
// decision compiles without the answer's and the repairs' rules, the
// permission decision without the todo rules.
func TestEntryModules_CompileAlone(t *testing.T) {
	tests := []struct {
		ref       string
		want, not []string
	}{
		{"data.loopx.run.decision", []string{"loopx/lib/lib.rego", "loopx/lib/todos.rego", "loopx/lib/gates.rego", "loopx/run/quota.rego"}, []string{"loopx/lib/glob.rego"}},
		{"data.loopx.permission.decision", []string{"loopx/lib/lib.rego", "loopx/lib/glob.rego", "loopx/lib/gates.rego"}, []string{"loopx/lib/todos.rego"}},
		{"data.loopx.claim.decision", []string{"loopx/lib/lib.rego", "loopx/lib/todos.rego", "loopx/lib/gates.rego"}, []string{"loopx/lib/glob.rego"}},
		{"data.loopx.gate.decision", []string{"loopx/lib/lib.rego", "loopx/identity/identity.rego", "loopx/request/request.rego"}, []string{"loopx/repair/repair.rego", "loopx/lib/todos.rego"}},
		{"data.loopx.identity.acting", []string{"loopx/request/request.rego", "loopx/identity/identity.rego"}, []string{"loopx/gate/decision.rego", "loopx/repair/repair.rego"}},
		{"data.loopx.adopt.confirm", []string{"loopx/adopt/confirm.rego", "loopx/repair/repair.rego"}, []string{"loopx/adopt/scope.rego", "loopx/gate/decision.rego"}},
		{"data.loopx.adopt.decision", []string{"loopx/adopt/scope.rego", "loopx/adopt/gates.rego"}, []string{"loopx/adopt/confirm.rego", "loopx/repair/repair.rego"}},
		{"data.loopx.lib.claim_order", []string{"loopx/lib/todos.rego"}, []string{"loopx/lib/lib.rego"}},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			mods := EntryModules(tt.ref)
			for _, p := range tt.want {
				if _, ok := mods[p]; !ok {
					t.Errorf("EntryModules(%q) lacks %s", tt.ref, p)
				}
			}
			for _, p := range tt.not {
				if _, ok := mods[p]; ok {
					t.Errorf("EntryModules(%q) includes %s, which it never reaches", tt.ref, p)
				}
			}
		})
	}
	for _, ref := range Entrypoints() {
		parsed := map[string]*ast.Module{}
		for p, src := range EntryModules(ref) {
			m, err := ast.ParseModuleWithOpts(p, src, ast.ParserOptions{RegoVersion: ast.RegoV1})
			if err != nil {
				t.Fatal(err)
			}
			parsed[p] = m
		}
		c := ast.NewCompiler()
		if c.Compile(parsed); c.Failed() {
			t.Errorf("%s alone does not compile: %v", ref, c.Errors)
		}
	}
	if mods := EntryModules("data.loopx.run.nope"); mods != nil {
		t.Fatalf("EntryModules(unknown) = %v, want nil", mods)
	}
}
