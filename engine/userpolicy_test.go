package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/internal/testproject"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/engine/mutating/adopt"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
)

func writeUserPolicy(t *testing.T, e *Engine, name, src string) {
	t.Helper()
	dir := filepath.Join(e.SpecDir(), rulebook.DirName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reopen returns a fresh engine on the same project (policies load once per engine).
func reopen(t *testing.T, e *Engine, c *testproject.Clock) *Engine {
	t.Helper()
	e.Close()
	e2 := New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now})
	t.Cleanup(func() { e2.Close() })
	if e2.Pending() != nil { // a human edited loopx/: they adopt it too
		if _, err := e2.Adopt(context.Background(), adopt.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	return e2
}

func TestUserPolicy_DenyWinsAndWarnIsAdded(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "a")
	writeUserPolicy(t, e, "weekend.rego", `package loopx.user.should_run

deny contains {"code": "weekend", "message": "no rounds on weekends"} if {
	time.weekday(time.parse_rfc3339_ns(input.now)) in {"Saturday", "Sunday"}
}

warn contains "remember the changelog" if input.agent == "a1"
`)
	e = reopen(t, e, c) // 2026-11-29 is a Sunday
	d := decide(t, e, "a1")
	if d.Verdict != "deny" || !d.HasReason("weekend") || !d.HasReason("user_warning") {
		t.Fatalf("%s %+v", d.Verdict, d.Reasons)
	}
	c.Set(c.Now().AddDate(0, 0, 1)) // Monday
	d = decide(t, e, "a1")
	if d.Verdict != "run" || !d.HasReason("user_warning") {
		t.Fatalf("monday: %s %+v", d.Verdict, d.Reasons)
	}
}

func TestUserPolicy_BrokenOrUnreachableDenies(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ src, want string }{
		"syntax error":       {"package loopx.user.should_run\n\ndeny contains \"x\" if {\n", "weekend.rego:"},
		"typo in package":    {"package loopx.user.shouldrun\n\ndeny contains \"x\" if true\n", "did you mean loopx.user.should_run"},
		"outside loopx.user": {"package loopx.run\n\ndecision := {\"verdict\": \"run\"}\n", "must declare a package under loopx.user."},
		"compile error":      {"package loopx.user.should_run\n\ndeny contains x if { y := 1 }\n", "weekend.rego:3"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e, c := newEngine(t, testSpec)
			addTodos(t, e, "a")
			writeUserPolicy(t, e, "weekend.rego", tc.src)
			e = reopen(t, e, c)
			d := decide(t, e, "a1")
			if d.Verdict != "deny" || !d.HasReason("policy_error") || !strings.Contains(d.Reasons[0].Message, tc.want) {
				t.Fatalf("%s %+v", d.Verdict, d.Reasons)
			}
		})
	}
}

// A permission input carries input.state.todos only when a user policy
// may read them: the built-in permission policy reads none, and every
// tool call would otherwise convert every todo.
func TestUserPolicy_PermissionTodosOnlyWhenRead(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		todos     int
	}{
		{"no user policy", "", 0},
		{"a user policy reading the gates only", "package loopx.user.permission\n\ndeny contains \"gated\" if count(input.state.gates) > 99\n", 0},
		{"a user policy reading the todos", "package loopx.user.permission\n\nwarn contains sprintf(\"%d todos open\", [count(input.state.todos)]) if true\n", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, c := newEngine(t, permSpec)
			addTodos(t, e, "a", "b")
			if tc.src != "" {
				writeUserPolicy(t, e, "todos.rego", tc.src)
			}
			e = reopen(t, e, c)
			req := toolcall.Call{Tool: "Bash", Command: "ls"}
			in, err := e.buildInput(Request{Query: query.Permission, Goal: "g1", Agent: "claude", Permission: toolcall.Read(e.root, e.loopxStateDir(), req)}, e.Now())
			if err != nil {
				t.Fatal(err)
			}
			if len(in.State.Todos) != tc.todos || in.State.Todos == nil {
				t.Fatalf("permission input has %d todos (nil %v), want %d", len(in.State.Todos), in.State.Todos == nil, tc.todos)
			}
			if in, _ := e.buildInput(Request{Query: query.ShouldRun, Goal: "g1", Agent: "claude"}, e.Now()); len(in.State.Todos) != 2 {
				t.Fatalf("should_run input has %d todos, want 2", len(in.State.Todos))
			}
			d := permission(t, e, "claude", req)
			if tc.todos > 0 && !hasMessage(d, "2 todos open") {
				t.Fatalf("the user policy did not see the todos: %s %+v", d.Verdict, d.Reasons)
			}
		})
	}
}

func hasMessage(d decision.Decision, msg string) bool {
	for _, r := range d.Reasons {
		if strings.Contains(r.Message, msg) {
			return true
		}
	}
	return false
}

// A claim input carries input.state.todos only when a user policy may
// read them: the built-in claim policy reads the claimed todo's own facts
// (input.claim.todo), and a claim under the store lock would otherwise
// convert every todo.
func TestUserPolicy_ClaimTodosOnlyWhenRead(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		todos     int
	}{
		{"no user policy", "", 0},
		{"a user policy reading the todos", "package loopx.user.claim\n\nwarn contains sprintf(\"%d todos open\", [count(input.state.todos)]) if true\n", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, c := newEngine(t, testSpec)
			todos := addTodos(t, e, "a", "b")
			if tc.src != "" {
				writeUserPolicy(t, e, "todos.rego", tc.src)
			}
			e = reopen(t, e, c)
			d, err := e.DecideClaim(context.Background(), lease.Preview{Todo: todos[0].ID, Agent: "a1"})
			if err != nil || !d.Allow {
				t.Fatalf("%v %s %+v", err, d.Verdict, d.Reasons)
			}
			x, err := e.Explain(context.Background(), d.DecisionID)
			if err != nil || x.StoredInputState != "stored" {
				t.Fatalf("%v %s", err, x.StoredInputState)
			}
			b, err := os.ReadFile(filepath.Join(e.root, x.StoredInput))
			if err != nil {
				t.Fatal(err)
			}
			var in struct {
				State struct{ Todos []any } `json:"state"`
			}
			if err := json.Unmarshal(b, &in); err != nil {
				t.Fatal(err)
			}
			if len(in.State.Todos) != tc.todos {
				t.Fatalf("claim input has %d todos, want %d", len(in.State.Todos), tc.todos)
			}
			if tc.todos > 0 && !hasMessage(d, "2 todos open") {
				t.Fatalf("the user policy did not see the todos: %s %+v", d.Verdict, d.Reasons)
			}
		})
	}
}
