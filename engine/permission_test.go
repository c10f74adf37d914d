package engine

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/loopx-dev/loopx/internal/testproject"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
)

const permSpec = `agents: claude: {host: "claude-code", role: "executor"}
agents: other: {host: "shell"}
goals: g1: {
	objective: "Test permissions"
	agents: ["claude"]
	scope: {
		write: ["api/**", "docs/**"]
		deny:  [".env", "secrets/**"]
		commands: {deny: ["git push --force*"], ask: ["git push*", "npm publish*"]}
	}
}
`

// permGrantSpec grants go test, the docs and WebFetch on top of permSpec.
const permGrantSpec = permSpec + `goals: g1: scope: grant: {commands: ["go test*"], paths: ["docs/**"], tools: ["WebFetch"]}
`

const permGateSpec = permSpec + `goals: g1: gates: merge: {
	question: "Merge the v2 branch into main now?"
	guards: ["git.merge", "git.push"]
}
`

func permission(t *testing.T, e *Engine, agent string, in toolcall.Call) decision.Decision {
	t.Helper()
	d, err := e.Permission(context.Background(), "g1", agent, in)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestPermission(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, permSpec)
	g, _ := newEngine(t, permGateSpec)
	gr, _ := newEngine(t, permGrantSpec)
	if err := os.MkdirAll(filepath.Join(e.Root(), "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../loopx/loopx.cue", filepath.Join(e.Root(), "docs", "spec.cue")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		e       *Engine
		agent   string
		in      toolcall.Call
		verdict string
		codes   []string
	}{
		{"edit in scope defers", e, "claude", toolcall.Call{Tool: "Edit", Paths: []string{"api/v2/handlers.go"}}, "defer", []string{"no_grant"}},
		{"absolute path in scope", e, "claude", toolcall.Call{Tool: "Write", Paths: []string{filepath.Join(e.Root(), "docs", "a.md")}}, "defer", []string{"no_grant"}},
		{"granted path", gr, "claude", toolcall.Call{Tool: "Write", Paths: []string{filepath.Join(gr.Root(), "docs", "a.md")}}, "allow", []string{"granted"}},
		{"granted command", gr, "claude", toolcall.Call{Tool: "Bash", Command: "go test ./..."}, "allow", []string{"granted"}},
		{"granted tool", gr, "claude", toolcall.Call{Tool: "WebFetch"}, "allow", []string{"granted"}},
		{"partly granted command", gr, "claude", toolcall.Call{Tool: "Bash", Command: "go test ./... && curl -s example.com"}, "defer", []string{"no_grant"}},
		{"granted command writing elsewhere", gr, "claude", toolcall.Call{Tool: "Bash", Command: "go test ./... > /tmp/out.txt"}, "defer", []string{"no_grant"}},
		{"grant under an objection", gr, "claude", toolcall.Call{Tool: "Bash", Command: "go test ./... && git push"}, "ask", []string{"command_ask"}},
		{"host settings", gr, "claude", toolcall.Call{Tool: "Write", Paths: []string{".claude/settings.json"}}, "deny", []string{"protected_path", "outside_scope"}},
		{"host settings by command", gr, "claude", toolcall.Call{Tool: "Bash", Command: "echo '{}' > .codex/hooks.json"}, "deny", []string{"protected_path"}},
		{"write the spec", e, "claude", toolcall.Call{Tool: "Write", Paths: []string{"loopx/loopx.cue"}}, "deny", []string{"protected_path", "outside_scope"}},
		{"write the state", e, "claude", toolcall.Call{Tool: "Write", Paths: []string{"api/../.loopx/state.db"}}, "deny", []string{"protected_path", "outside_scope"}},
		{"symlink into loopx", e, "claude", toolcall.Call{Tool: "Edit", Paths: []string{"docs/spec.cue"}}, "deny", []string{"protected_path", "outside_scope"}},
		{"traversal", e, "claude", toolcall.Call{Tool: "MultiEdit", Paths: []string{"api/../../../.ssh/config"}}, "deny", []string{"outside_project"}},
		{"absolute elsewhere", e, "claude", toolcall.Call{Tool: "Write", Paths: []string{"/etc/hosts"}}, "deny", []string{"outside_project"}},
		{"scope deny", e, "claude", toolcall.Call{Tool: "Write", Paths: []string{".env"}}, "deny", []string{"scope_denied", "outside_scope"}},
		{"outside scope", e, "claude", toolcall.Call{Tool: "Write", Paths: []string{"README.md"}}, "deny", []string{"outside_scope"}},
		{"push asks", e, "claude", toolcall.Call{Tool: "Bash", Command: "git push origin main"}, "ask", []string{"command_ask"}},
		{"force push denies", e, "claude", toolcall.Call{Tool: "Bash", Command: "git push --force origin main"}, "deny", []string{"command_denied"}},
		{"plain command defers", e, "claude", toolcall.Call{Tool: "Bash", Command: "go test ./... 2>&1 | tee /tmp/log"}, "defer", []string{"no_grant"}},
		{"self answer", e, "claude", toolcall.Call{Tool: "Bash", Command: "cd /tmp && env -i ./loopx gate answer g-1 --option approve"}, "deny", []string{"human_only"}},
		{"redirect into state", e, "claude", toolcall.Call{Tool: "Bash", Command: "echo x >> .loopx/state.db"}, "deny", []string{"protected_path"}},
		{"rm the parent", e, "claude", toolcall.Call{Tool: "Bash", Command: "rm -rf .."}, "deny", []string{"protected_path"}},
		// After `cd DIR;` the rm runs in DIR or, when cd failed, in the project.
		{"rm everything", e, "claude", toolcall.Call{Tool: "Bash", Command: "cd /no/such/dir; rm -rf *"}, "deny", []string{"protected_path", "protected_path"}},
		{"write to /tmp", e, "claude", toolcall.Call{Tool: "Bash", Command: "go test ./... > /tmp/out.txt; touch ~/x"}, "defer", []string{"no_grant"}},
		{"unparsed asks", e, "claude", toolcall.Call{Tool: "Bash", Command: "echo 'oops"}, "ask", []string{"command_opaque"}},
		{"unknown agent", e, "nobody", toolcall.Call{Tool: "Edit", Paths: []string{"api/x.go"}}, "deny", []string{"unknown_agent"}},
		{"agent not on goal", e, "other", toolcall.Call{Tool: "Edit", Paths: []string{"api/x.go"}}, "deny", []string{"agent_not_on_goal"}},
		{"gate guards push", g, "claude", toolcall.Call{Tool: "Bash", Command: "git push origin main"}, "deny", []string{"gate_open"}},
		{"gate guards mcp merge", g, "claude", toolcall.Call{Tool: "mcp__github__merge_pull_request"}, "deny", []string{"gate_open"}},
		{"explicit action", g, "claude", toolcall.Call{Action: "git.merge"}, "deny", []string{"gate_open"}},
		{"gate leaves edits", g, "claude", toolcall.Call{Tool: "Edit", Paths: []string{"api/x.go"}}, "defer", []string{"no_grant"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := permission(t, tc.e, tc.agent, tc.in)
			var codes []string
			for _, r := range d.Reasons {
				codes = append(codes, r.Code)
			}
			if d.Verdict != tc.verdict || !reflect.DeepEqual(codes, tc.codes) || d.Query != "permission" || d.Allow != (tc.verdict == "allow") || d.Charge {
				t.Fatalf("got %s %v (allow %v, charge %v), want %s %v\n%+v", d.Verdict, codes, d.Allow, d.Charge, tc.verdict, tc.codes, d.Reasons)
			}
		})
	}
}

func TestPermission_GlobOverStateDirDenies(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, permSpec)
	permission(t, e, "claude", toolcall.Call{Action: "noop"}) // creates .loopx/
	d := permission(t, e, "claude", toolcall.Call{Tool: "Bash", Command: "rm -rf .loop*"})
	if d.Verdict != "deny" || d.Reasons[0].Code != "protected_path" {
		t.Fatalf("rm -rf .loop* with .loopx/ present: %s %+v", d.Verdict, d.Reasons)
	}
}

func TestPermission_InputFacts(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, permSpec)
	pr := toolcall.Read(e.root, e.loopxStateDir(), toolcall.Call{Tool: "mcp__github__merge_pull_request"})
	if pr.Action != "git.merge" || !reflect.DeepEqual(pr.Actions, []string{"mcp.github.merge_pull_request", "git.merge"}) {
		t.Errorf("mcp actions = %q %q", pr.Action, pr.Actions)
	}
	pr = toolcall.Read(e.root, e.loopxStateDir(), toolcall.Call{Tool: "Bash", Command: "git add . && git commit -m x && git push"})
	if pr.Action != "git.push" || !reflect.DeepEqual(pr.Actions, []string{"shell.exec", "git.commit", "git.push"}) {
		t.Errorf("bash actions = %q %q", pr.Action, pr.Actions)
	}
	pr = toolcall.Read(e.root, e.loopxStateDir(), toolcall.Call{Tool: "Bash", Action: "deploy", Command: "git push"})
	if pr.Action != "deploy" || !reflect.DeepEqual(pr.Actions, []string{"deploy", "shell.exec", "git.push"}) {
		t.Errorf("explicit action = %q %q", pr.Action, pr.Actions)
	}
	if pr := toolcall.Read(e.root, e.loopxStateDir(), toolcall.Call{}); pr.Paths == nil || pr.Commands == nil || pr.Actions == nil {
		t.Errorf("lists must be [] not null: %+v", pr)
	}
}

func TestPermission_BrokenSpecDenies(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeSpec(t, root, "goals: g1: {objective: 12}\n")
	e := New(Options{Root: root, StateHome: stateHome(root), Now: testproject.NewClock().Now})
	defer e.Close()
	d, _ := e.Permission(context.Background(), "g1", "claude", toolcall.Call{Tool: "Edit", Paths: []string{"a"}})
	if d.Verdict != "deny" || d.Reasons[0].Code != "spec_error" {
		t.Fatalf("broken spec: %s %+v", d.Verdict, d.Reasons)
	}
}
