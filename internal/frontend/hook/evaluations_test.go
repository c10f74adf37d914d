package hook

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/testproject"
)

// A PreToolUse hook decides who its caller acts as and whether the call
// may go ahead in one policy evaluation: each costs the hook's latency.
func TestAnswer_PreToolUseEvaluatesOnce(t *testing.T) {
	p := testproject.New(t, `agents: claude: {host: "claude-code", role: "executor"}
goals: g1: {objective: "Test the hook", agents: ["claude"], scope: write: ["api/**"]}
`)
	t.Setenv("XDG_STATE_HOME", p.StateHome) // the hook's engine takes its state directory from the environment
	t.Setenv("LOOPX_GOAL", "")
	for _, tc := range []struct{ name, agent, payload, want string }{
		{"named agent", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"api/a.go"}}`, ""}, // defer: no answer,
		{"the host's agent", "", `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"loopx/loopx.cue"}}`, `"permissionDecision":"deny"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("LOOPX_AGENT", "")
			before := engine.Evaluations()
			r := Answer(context.Background(), strings.NewReader(tc.payload), Options{
				Host: "claude-code", Event: "PreToolUse", Agent: tc.agent,
				Root: func() (string, error) { return p.Root, nil }, Named: true,
				Clock:    func() (func() time.Time, error) { return p.Clock.Now, nil },
				Ancestry: trust.AncestryOptions{StopAt: os.Getpid()},
				Deadline: time.Minute,
			})
			if r.Engine != nil {
				defer r.Engine.Close()
			}
			if r.Err != nil || !strings.Contains(string(r.Out), tc.want) {
				t.Fatalf("err %v, out %s; want %s", r.Err, r.Out, tc.want)
			}
			if n := engine.Evaluations() - before; n != 1 {
				t.Fatalf("%d policy evaluations, want 1", n)
			}
		})
	}
	// With a user policy, compiled with the built-in rules and type-checked.
	p.Write(t, "loopx/policies/no_docs.rego", `package loopx.user.permission

deny contains "no docs today" if {
	some p in input.permission.paths
	startswith(p.path, "docs/")
}
`)
	t.Setenv("LOOPX_AGENT", "")
	before := engine.Evaluations()
	r := Answer(context.Background(), strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"docs/a.md"}}`), Options{
		Host: "claude-code", Event: "PreToolUse", Agent: "claude",
		Root: func() (string, error) { return p.Root, nil }, Named: true,
		Clock:    func() (func() time.Time, error) { return p.Clock.Now, nil },
		Ancestry: trust.AncestryOptions{StopAt: os.Getpid()},
		Deadline: time.Minute,
	})
	if r.Engine != nil {
		defer r.Engine.Close()
	}
	if r.Err != nil || !strings.Contains(string(r.Out), "no docs today") {
		t.Fatalf("user policy: err %v, out %s", r.Err, r.Out)
	}
	if n := engine.Evaluations() - before; n != 1 {
		t.Fatalf("user policy: %d policy evaluations, want 1", n)
	}
}
