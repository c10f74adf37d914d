package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient is a go-sdk client session on loopx's server for a project,
// over pipes and the server's Transport, with the server's clock pinned by
// set.
type mcpClient struct {
	t    *testing.T
	root string
	cs   *mcp.ClientSession
	mu   sync.Mutex
	now  time.Time
}

func newMCPClient(t *testing.T, tools []string) *mcpClient {
	t.Helper()
	c := &mcpClient{t: t, root: newProject(t)}
	clock := func() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
	srv, err := New(Options{Engine: engine.Options{Root: c.root, Now: clock}, Tools: tools, Agent: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, &Transport{Reader: inR, Writer: outW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close() // closes inW: the server sees EOF
		if err := ss.Wait(); err != nil {
			t.Errorf("server session: %v", err)
		}
		outW.Close()
	})
	c.cs = cs
	return c
}

func (c *mcpClient) set(rfc string) {
	c.t.Helper()
	tm, err := time.Parse(time.RFC3339, rfc)
	if err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	c.now = tm
	c.mu.Unlock()
}

// call calls a tool and returns its text and whether it is a tool error.
func (c *mcpClient) call(tool string, args map[string]any) (string, bool) {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: protocol error: %v", tool, err)
	}
	if len(res.Content) != 1 {
		c.t.Fatalf("%s: %d content blocks, want 1", tool, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if (res.StructuredContent == nil) != res.IsError {
		c.t.Fatalf("%s: structured content %v on a result with isError %v", tool, res.StructuredContent, res.IsError)
	}
	return text, res.IsError
}

// ok calls a tool that must succeed and decodes its JSON document.
func (c *mcpClient) ok(tool string, args map[string]any) map[string]any {
	c.t.Helper()
	text, isErr := c.call(tool, args)
	if isErr {
		c.t.Fatalf("%s %v: tool error: %s", tool, args, text)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		c.t.Fatalf("%s: result is not a JSON object: %v\n%s", tool, err, text)
	}
	return v
}

// get walks a decoded JSON document: get(v, "round", "id").
func get(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("no field %q in %v", k, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("no element %d in %v", k, v)
			}
			v = a[k]
		}
	}
	return v
}

// TestMCP_FourthRoundOverQuotaIsSkipped: a goal allows 3 rounds per
// window; an agent runs round_start → round_finish(progress) four times.
// Each progress finish charges one round; finishing twice replays the
// receipt and charges nothing; the 4th start is skip, quota_exhausted, 3/3,
// with the reset instant; status shows the newest open todo. Refusals are
// tool errors, and no call keeps the state lock.
func TestMCP_FourthRoundOverQuotaIsSkipped(t *testing.T) {
	c := newMCPClient(t, []string{"all"})

	tools, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("tool %s: no description, input schema or output schema", tl.Name)
		}
	}
	slices.Sort(names)
	want := []string{"evidence_add", "gate_raise", "prompt", "round_finish", "round_start", "should_run", "status", "todo_add"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	c.set("2026-11-29T08:50:00Z")
	for _, title := range []string{"Write the migration guide", "Add the v2 routes", "Update the changelog", "Announce the release"} {
		td := c.ok("todo_add", map[string]any{"goal": "g1", "title": title, "agent": "a1"})
		if get(t, td, "title") != title || get(t, td, "created_by") != "a1" {
			t.Fatalf("todo_add: %v", td)
		}
	}

	// The prompt tool: the bounded-turn prompt `loopx prompt` prints.
	c.set("2026-11-29T08:55:00Z")
	p := c.ok("prompt", map[string]any{"goal": "g1", "agent": "a1"})
	text, _ := get(t, p, "text").(string)
	if get(t, p, "verdict") != "run" || get(t, p, "todo", "title") != "Write the migration guide" ||
		!strings.Contains(text, "Ship the v2 API") || !strings.Contains(text, "Write the migration guide") ||
		get(t, p, "chars").(float64) > 2000 {
		t.Fatalf("prompt: %v", p)
	}

	var last string
	for i, at := range []string{"2026-11-29T09:00:00Z", "2026-11-29T09:10:00Z", "2026-11-29T09:20:00Z"} {
		c.set(at)
		d := c.ok("should_run", map[string]any{"goal": "g1", "agent": "a1"})
		if get(t, d, "verdict") != "run" {
			t.Fatalf("round %d: should_run %v", i+1, d)
		}
		st := c.ok("round_start", map[string]any{"goal": "g1", "agent": "a1"})
		if get(t, st, "decision", "verdict") != "run" {
			t.Fatalf("round %d: start %v", i+1, st)
		}
		last = get(t, st, "round", "id").(string)
		args := map[string]any{"round": last, "outcome": "progress", "done": true, "tokens": 100, "agent": "a1",
			"evidence": []any{map[string]any{"kind": "test", "status": "pass", "summary": "go test ./..."}}}
		if i == 2 {
			args["next_todo"] = "Write the v3 plan"
		}
		rc := c.ok("round_finish", args)
		if get(t, rc, "charged") != true || get(t, rc, "replayed") != false || get(t, rc, "ledger", "rounds") != 1.0 {
			t.Fatalf("round %d: receipt %v", i+1, rc)
		}
		// The call released the state lock: another process can open the store.
		e := engine.New(engine.Options{Root: c.root, LockTimeout: 200 * time.Millisecond})
		if _, err := e.Store(); err != nil {
			t.Fatalf("round %d: the store is still locked after the call: %v", i+1, err)
		}
		e.Close()
	}

	// Finishing the finished round again: the stored receipt, no second charge.
	rc := c.ok("round_finish", map[string]any{"round": last, "outcome": "progress", "tokens": 500})
	if get(t, rc, "replayed") != true || get(t, rc, "round", "tokens") != 100.0 || get(t, rc, "ledger", "tokens") != 100.0 {
		t.Fatalf("second finish: %v", rc)
	}

	// The 4th start: skip, quota_exhausted, 3/3, with the reset instant.
	c.set("2026-11-29T09:30:00Z")
	st := c.ok("round_start", map[string]any{"goal": "g1", "agent": "a1"})
	if get(t, st, "decision", "verdict") != "skip" || get(t, st, "round") != nil || get(t, st, "todo") != nil {
		t.Fatalf("4th start: %v", st)
	}
	r := get(t, st, "decision", "reasons", 0)
	msg, _ := get(t, r, "message").(string)
	if get(t, r, "code") != "quota_exhausted" || !strings.Contains(msg, "3/3 rounds") || !strings.Contains(msg, "resets 2026-11-30T09:00:00Z") {
		t.Fatalf("4th start reason: %v", r)
	}
	if get(t, st, "decision", "quota", "rounds", "used") != 3.0 || get(t, st, "decision", "quota", "resets_at") != "2026-11-30T09:00:00Z" {
		t.Fatalf("4th start quota: %v", get(t, st, "decision", "quota"))
	}

	// Status: 3 of 3 used (nothing charged twice), the newest open todo.
	s := c.ok("status", map[string]any{"goal": "g1"})
	g := get(t, s, "goals", 0)
	if get(t, g, "quota", "rounds", "used") != 3.0 || get(t, g, "quota", "tokens", "used") != 300.0 {
		t.Fatalf("status quota: %v", get(t, g, "quota"))
	}
	if get(t, g, "newest_todo", "title") != "Write the v3 plan" || get(t, g, "evidence") != 3.0 {
		t.Fatalf("status: %v", g)
	}

	// Refusals and mistakes are tool errors, never protocol errors or crashes.
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"round_start", map[string]any{"goal": "nope", "agent": "a1"}, `unknown goal "nope"`},
		{"should_run", map[string]any{"goal": "nope", "agent": "a1"}, `unknown goal "nope"`},
		{"status", map[string]any{"goal": "nope"}, `unknown goal "nope"`},
		{"round_finish", map[string]any{"round": "r-0000", "outcome": "progress"}, `unknown round "r-0000"`},
		{"todo_add", map[string]any{"goal": "g1", "title": "x", "priority": "P9"}, `P9 does not equal any of: [P0 P1 P2 P3 P4]`},
		{"gate_raise", map[string]any{"goal": "g1", "question": "ok"}, "not a concrete question"},
		{"round_start", map[string]any{"agent": "a1"}, `missing properties: ["goal"]`},
		{"round_start", map[string]any{"goal": "g1", "agent": "a1", "extra": 1}, `extra`},
		{"prompt", map[string]any{"goal": "g1", "agent": "a1", "max_chars": -1}, `max_chars must not be negative`},
		// The session is bound to a1 (loopx mcp --agent a1): a call naming
		// another agent is refused, whatever tool.
		{"round_start", map[string]any{"goal": "g1", "agent": "a2"}, `acts as agent a1 (bound at start): it cannot act as "a2"`},
		{"should_run", map[string]any{"goal": "g1", "agent": "a2"}, `cannot act as "a2"`},
		{"gate_raise", map[string]any{"goal": "g1", "question": "Merge the v2 branch into main now?", "agent": "a2"}, `cannot act as "a2"`},
		{"round_finish", map[string]any{"round": "r-0000", "outcome": "progress", "agent": "a2"}, `cannot act as "a2"`},
	} {
		text, isErr := c.call(tc.tool, tc.args)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: error=%v %q, want a tool error containing %q", tc.tool, tc.args, isErr, text, tc.want)
		}
	}

	// A call naming no agent acts as the one the session is bound to: the
	// input schema does not require it (docs/trust.md, Trust model).
	if sr := c.ok("should_run", map[string]any{"goal": "g1"}); get(t, sr, "agent") != "a1" {
		t.Fatalf("should_run without agent: %v", sr)
	}

	// An agent may raise a gate; the goal then waits for a human.
	gt := c.ok("gate_raise", map[string]any{"goal": "g1", "question": "Merge the v2 branch into main now?", "agent": "a1"})
	if get(t, gt, "status") != "open" || get(t, gt, "raised_by") != "a1" {
		t.Fatalf("gate_raise: %v", gt)
	}
	ev := c.ok("evidence_add", map[string]any{"goal": "g1", "summary": "CI is green", "kind": "check", "status": "pass"})
	if get(t, ev, "kind") != "check" || get(t, ev, "by") != "a1" { // the session's bound agent
		t.Fatalf("evidence_add: %v", ev)
	}
}

// TestMCPTools_DefaultSetIsSmall: without Options.Tools only the tools of
// one bounded turn are served; "all" adds the rest; an unknown name is a
// usage error.
func TestMCPTools_DefaultSetIsSmall(t *testing.T) {
	for _, tc := range []struct {
		tools []string
		want  []string
	}{
		{nil, []string{"gate_raise", "prompt", "round_finish", "round_start", "should_run"}},
		{[]string{"status", "prompt", "status"}, []string{"prompt", "status"}},
	} {
		c := newMCPClient(t, tc.tools)
		res, err := c.cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		if !slices.Equal(names, tc.want) {
			t.Errorf("tools %v: served %v, want %v", tc.tools, names, tc.want)
		}
	}
	var ue *errs.Error
	for _, tc := range []struct {
		tools []string
		code  string
	}{
		{[]string{"answer_gate"}, "unknown_tool"},
		{[]string{}, "no_tools"},
		{[]string{" ", ""}, "no_tools"},
	} {
		if _, err := New(Options{Tools: tc.tools}); !(errs.IsKind(err, errs.Usage) && errors.As(err, &ue)) || ue.Code != tc.code {
			t.Errorf("tools %q: %v, want %s", tc.tools, err, tc.code)
		}
	}
}

// TestMCP_UnboundSessionTakesNoAgentOnTrust: a server bound to no agent
// refuses every call that names one (an MCP client's agent argument is
// never taken on trust), and still serves calls that name none; a bound
// server acts as its agent. Each refusal is audited (identity.refused).
func TestMCP_UnboundSessionTakesNoAgentOnTrust(t *testing.T) {
	o := Options{Engine: engine.Options{Root: newProject(t)}, Tools: []string{"all"}}
	ctx := context.Background()
	refused := 0 // identity.refused events so far (one project for all)
	for _, tc := range []struct {
		name, bound, agent string
		want, code         string
	}{
		{"unbound, naming an agent", "", "a1", "", "unbound_session"},
		{"bound to a1, naming a2", "a1", "a2", "", "agent_mismatch"},
		{"unbound, naming none", "", "", "", ""},
		{"bound to a1, naming none", "a1", "", "a1", ""},
		{"bound to a1, naming a1", "a1", "a1", "a1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oo := o
			oo.Agent = tc.bound
			e := engine.New(oo.Engine)
			defer e.Close()
			got, err := oo.as(ctx, e, trust.ActRequest{Agent: tc.agent, What: "mcp should_run", Goal: "g1"})
			var re *errs.Error
			switch {
			case tc.code == "" && (err != nil || got != tc.want):
				t.Fatalf("as(%q) = %q, %v; want %q", tc.agent, got, err, tc.want)
			case tc.code != "" && (!(errs.IsKind(err, errs.No) && errors.As(err, &re)) || re.Code != tc.code):
				t.Fatalf("as(%q) = %v, want %s", tc.agent, err, tc.code)
			}
			evs, err := e.Events(reportdata.EventFilter{Kind: "identity.refused"})
			if err != nil {
				t.Fatal(err)
			}
			if tc.code != "" {
				refused++
			}
			if len(evs) != refused {
				t.Fatalf("%d identity.refused events, want %d", len(evs), refused)
			}
		})
	}
}

// TestMCPTools_InputSchemasStateWhatIsEnforced: the values the server
// accepts for outcome, evidence kind and status, and todo priority are
// enums in the input schemas the client sees, and the gate question's rule
// is in its description; a value outside an enum is refused before the
// engine is asked.
func TestMCPTools_InputSchemasStateWhatIsEnforced(t *testing.T) {
	c := newMCPClient(t, []string{"all"})
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]any{}
	for _, tl := range res.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		schemas[tl.Name] = v
	}
	enum := func(v any) string {
		var out []string
		for _, e := range v.([]any) {
			out = append(out, e.(string))
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		tool string
		path []any
		want string
	}{
		{"round_finish", []any{"properties", "outcome", "enum"}, "progress,failed,no_change,preflight_failed,dry_run"},
		{"round_finish", []any{"properties", "evidence", "items", "properties", "kind", "enum"}, "test,pr,log,metric,check,note"},
		{"round_finish", []any{"properties", "evidence", "items", "properties", "status", "enum"}, "pass,fail,info"},
		{"evidence_add", []any{"properties", "kind", "enum"}, "test,pr,log,metric,check,note"},
		{"evidence_add", []any{"properties", "status", "enum"}, "pass,fail,info"},
		{"todo_add", []any{"properties", "priority", "enum"}, "P0,P1,P2,P3,P4"},
	} {
		v := get(t, schemas[tc.tool], tc.path...)
		if v == nil || enum(v) != tc.want {
			t.Errorf("%s %v = %v, want %s", tc.tool, tc.path, v, tc.want)
		}
	}
	if d, _ := get(t, schemas["gate_raise"], "properties", "question", "description").(string); !strings.Contains(d, "at least 4 words") || !strings.Contains(d, "?") {
		t.Errorf("gate_raise question description %q does not state the rule", d)
	}
	if text, isErr := c.call("round_finish", map[string]any{"round": "r-1", "outcome": "done"}); !isErr || !strings.Contains(text, "outcome") {
		t.Errorf("an outcome outside the enum: %v %s", isErr, text)
	}
}
