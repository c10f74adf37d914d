package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loopx-dev/loopx/internal/testproject"
)

// tsSDKEnv names the directory where `npm ci` of testdata/mcp/package.json
// installed the official MCP TypeScript SDK (.ci/run sets it).
const tsSDKEnv = "LOOPX_MCP_TS_SDK"

// TestMCP_TypeScriptSDKClient drives `loopx mcp` with the official MCP
// TypeScript SDK's Client over StdioClientTransport (testdata/mcp/
// tsclient.mjs): tools listed with output schemas that compile, should_run,
// round_start, round_finish and prompt answered with structured content
// their schemas validate, a refusal as a tool error. Under CI=true it never
// skips: node or the SDK missing is a failure.
func TestMCP_TypeScriptSDKClient(t *testing.T) {
	node, sdk := npmClient(t, tsSDKEnv, "@modelcontextprotocol/sdk", "mcp")

	dir := testproject.New(t, `project: name: "ts"
agents: a1: {host: "shell"}
goals: g1: {
	objective: "Ship the v2 API"
	agents: ["a1"]
	quota: {window: "24h", rounds: 3, min_interval: "5m"}
}
`).Root
	if r := runLoopx(t, dir, "todo", "add", "--goal", "g1", "Write the migration guide"); r.code != 0 {
		t.Fatalf("todo add: %d %s", r.code, r.stderr)
	}

	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "tsclient.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, sdk, dir, "g1", "a1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LOOPX_PROJECT=", "LOOPX_AGENT=", "LOOPX_ROUND=", "LOOPX_NOW=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("tsclient: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
	}
	var rep struct {
		SDK    string `json:"sdk"`
		Server struct {
			Name string `json:"name"`
		} `json:"server"`
		Tools []string `json:"tools"`
		Calls struct {
			ShouldRun struct {
				Verdict, Todo string
			} `json:"should_run"`
			RoundStart struct {
				Verdict, Todo string
				HasRound      bool `json:"has_round"`
			} `json:"round_start"`
			RoundFinish struct {
				Charged, Replayed bool
				Outcome           string
			} `json:"round_finish"`
			Prompt struct {
				Verdict   string
				Chars     int
				Objective bool
			} `json:"prompt"`
			Refused struct {
				IsError     bool `json:"isError"`
				UnknownGoal bool `json:"unknown_goal"`
			} `json:"refused"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("tsclient report: %v\n%s", err, out.String())
	}
	t.Logf("TypeScript SDK %s against %s", rep.SDK, rep.Server.Name)
	slices.Sort(rep.Tools)
	c := rep.Calls
	switch {
	case rep.Server.Name != "loopx":
		t.Errorf("server %q", rep.Server.Name)
	case !slices.Equal(rep.Tools, []string{"gate_raise", "prompt", "round_finish", "round_start", "should_run"}):
		t.Errorf("tools %v", rep.Tools)
	case c.ShouldRun.Verdict != "run" || c.ShouldRun.Todo != "Write the migration guide":
		t.Errorf("should_run %+v", c.ShouldRun)
	case c.RoundStart.Verdict != "run" || !c.RoundStart.HasRound || c.RoundStart.Todo != "Write the migration guide":
		t.Errorf("round_start %+v", c.RoundStart)
	case !c.RoundFinish.Charged || c.RoundFinish.Replayed || c.RoundFinish.Outcome != "progress":
		t.Errorf("round_finish %+v", c.RoundFinish)
	case c.Prompt.Verdict != "skip" || !c.Prompt.Objective || c.Prompt.Chars == 0 || c.Prompt.Chars > 2000:
		t.Errorf("prompt %+v", c.Prompt)
	case !c.Refused.IsError || !c.Refused.UnknownGoal:
		t.Errorf("refusal %+v", c.Refused)
	}
}
