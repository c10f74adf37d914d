package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/cli"
)

// The --json contract: every document the commands print, and every MCP
// tool's schemas and output, kept as goldens under testdata/contract so a
// change of the contract shows as a diff. LOOPX_UPDATE_GOLDEN=1 rewrites
// them (review the diff).

// contractSpec is the one project every contract golden is taken from: two
// agents, one goal with quota, scope and a spec gate.
const contractSpec = `project: name: "acme-api"
agents: a1: {host: "shell", role: "executor"}
agents: a2: {host: "claude-code", role: "executor"}
goals: g1: {
	objective: "Ship the v2 API"
	agents: ["a1", "a2"]
	quota: {window: "24h", rounds: 10, min_interval: "0s"}
	scope: {
		write: ["api/**", "docs/**"]
		deny:  [".env"]
		commands: {deny: ["git push --force*"], ask: ["git push*"]}
	}
	gates: merge: {
		question: "Merge the v2 branch into main?"
		guards: ["git.merge"]
	}
}
goals: g2: objective: "Keep the docs current"
`

// notContract are the runnable commands with no golden here, and why.
var notContract = map[string]string{
	"loopx help":                  "prints help text, never a JSON document",
	"loopx completion bash":       "prints a shell script",
	"loopx completion fish":       "prints a shell script",
	"loopx completion powershell": "prints a shell script",
	"loopx completion zsh":        "prints a shell script",
	"loopx hook":                  "answers in the host's protocol: TestHook_Golden",
	"loopx mcp":                   "speaks MCP: TestContract_MCP",
	"loopx demo":                  "runs loopx as child processes in a new project: demo.txtar",
	"loopx watch":                 "runs until interrupted, one JSON line per change",
	"loopx serve status":          "the server's record (pid, start, socket, addr), which exists only while a server runs: serve_lifecycle and serve_status_human_only assert its --json fields",
	"loopx serve stop":            "stops a running server; prints no document",
	"loopx dashboard":             "starts a server and prints a single-use link: TestDashboard_Browser asserts its --json fields",
}

// contractProject makes the contract's project (contractSpec) in a new
// work directory and sets the environment its commands run in (the test
// clock, the project, no agent or round around them, anchors under
// work). It returns the work directory and the project root.
func contractProject(t *testing.T) (work, root string) {
	work = t.TempDir()
	root = filepath.Join(work, "p")
	if err := os.MkdirAll(filepath.Join(root, "loopx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "loopx", "loopx.cue"), []byte(contractSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LOOPX_NOW", "2026-11-29T10:00:00Z")
	t.Setenv("LOOPX_PROJECT", root)
	t.Setenv("XDG_STATE_HOME", filepath.Join(work, ".xdg-state"))
	for _, k := range []string{"LOOPX_GOAL", "LOOPX_AGENT", "LOOPX_ROUND"} {
		t.Setenv(k, "")
	}
	return work, root
}

var (
	// reRunner is a runner's identity: boot id, pid, process start time.
	reRunner = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:[0-9]+:[0-9]+\b`)
	// reBareHash is a sha256 without its prefix: a chain block's hash, a
	// stored input's file name.
	reBareHash = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
)

// normalizeContract is the one place a contract golden's varying values are
// replaced: normalize's (the work directory, ULIDs, sha256 hashes, record
// ids numbered by first appearance in the document), bare sha256 hashes
// (chain blocks, stored inputs), runner identities (boot id, pid, start
// time) and loopx's version, which depends on the build.
func normalizeContract(s, work string) string {
	s = normalize(s, work)
	s = reRunner.ReplaceAllString(s, "BOOT:PID:START")
	s = reBareHash.ReplaceAllString(s, "HASH")
	if v, _ := json.Marshal(cli.Version); len(v) > 2 {
		s = strings.ReplaceAll(s, string(v), `"VERSION"`)
	}
	return s
}

// checkGolden compares got with the golden testdata/name (rewriting it
// first under LOOPX_UPDATE_GOLDEN).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if os.Getenv("LOOPX_UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (LOOPX_UPDATE_GOLDEN=1 writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from its golden:\n--- got\n%s--- want\n%s", golden, got, want)
	}
}

// TestContract_JSON runs every command that prints a --json document, on
// one project that they build up together, and compares each document
// (with its exit code) with testdata/contract/cli/<command>[.<case>].json;
// the error envelope is there once per kind of error (usage, refused,
// not found). Every runnable command has a golden or a reason in
// notContract, so a new command cannot go without one.
func TestContract_JSON(t *testing.T) {
	work, root := contractProject(t)
	covered, goldens := map[string]bool{}, map[string]bool{}
	// run runs loopx with --json and checks its document against the
	// golden named after the command (and the case, when given); it
	// returns the document decoded.
	run := func(want int, name string, args ...string) any {
		t.Helper()
		var out, errb bytes.Buffer
		full := slices.Clone(args)
		if i := slices.Index(full, "--"); i >= 0 {
			full = slices.Insert(full, i, "--json")
		} else {
			full = append(full, "--json")
		}
		code := cli.Run(context.Background(), full, strings.NewReader(""), &out, &errb)
		if code != want {
			t.Fatalf("loopx %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out.String(), errb.String())
		}
		if !json.Valid(out.Bytes()) {
			t.Fatalf("loopx %s: stdout is not one JSON document:\n%s", strings.Join(args, " "), out.String())
		}
		cmd := commandOf(args)
		covered[cmd] = true
		file := strings.ReplaceAll(strings.TrimPrefix(cmd, "loopx "), " ", "_")
		if name != "" {
			file += "." + name
		}
		if goldens[file] {
			t.Fatalf("loopx %s: the golden %s.json is taken: name the case", strings.Join(args, " "), file)
		}
		goldens[file] = true
		checkGolden(t, filepath.Join("contract", "cli", file+".json"), fmt.Sprintf("exit %d\n%s", code, normalizeContract(out.String(), work)))
		var v any
		_ = json.Unmarshal(out.Bytes(), &v)
		return v
	}
	str := func(v any, path ...string) string {
		t.Helper()
		for _, p := range path {
			switch x := v.(type) {
			case map[string]any:
				v = x[p]
			case []any:
				i, err := strconv.Atoi(p)
				if err != nil || i >= len(x) {
					t.Fatalf("no element %q in %v", p, v)
				}
				v = x[i]
			default:
				t.Fatalf("no field %q in %v", p, v)
			}
		}
		if n, ok := v.(float64); ok {
			return strconv.FormatFloat(n, 'f', -1, 64)
		}
		s, ok := v.(string)
		if !ok {
			t.Fatalf("%v is not a string", path)
		}
		return s
	}

	// Reading loopx itself.
	run(0, "", "version")
	run(0, "", "schema")
	run(0, "", "preset", "list")
	run(0, "", "preset", "show", "pr-watch")
	run(0, "", "policy", "schema", "should_run")

	// The project.
	run(0, "", "init", root)
	run(0, "", "vet")
	t1 := str(run(0, "", "todo", "add", "--goal", "g1", "Write the migration guide"), "id")
	t2 := str(run(0, "priority", "todo", "add", "--goal", "g1", "--priority", "P1", "Add the v2 routes"), "id")
	t3 := str(run(0, "third", "todo", "add", "--goal", "g1", "--priority", "P3", "Tell the team"), "id")
	run(0, "", "todo", "list", "--goal", "g1")
	run(0, "", "todo", "show", t1)
	run(0, "", "todo", "block", t3, "--note", "waiting for the routes")
	run(0, "", "todo", "reopen", t3)
	run(0, "", "todo", "cancel", t3, "--note", "not needed")
	run(0, "", "goal", "list")
	run(0, "", "goal", "show", "g1")
	run(0, "", "agent", "list")

	// Deciding.
	run(0, "", "decide", "should-run", "--goal", "g1", "--agent", "a1")
	run(1, "", "decide", "permission", "--goal", "g1", "--agent", "a1", "--tool", "Bash", "--command", "git push --force origin main")
	run(0, "", "decide", "claim", t2, "--agent", "a1")
	run(0, "", "policy", "test")

	// A round, claims and leases.
	started := run(0, "", "round", "start", "--goal", "g1", "--agent", "a1")
	r := str(started, "round", "id")
	run(0, "", "round", "show", r)
	run(0, "", "prompt", "--goal", "g1", "--agent", "a1")
	run(0, "", "round", "finish", r, "--agent", "a1", "--outcome", "progress", "--summary", "routes added",
		"--evidence", "test:pass:go test ./api/...", "--handoff", "routes added; next: the guide")
	claimed := run(0, "", "todo", "claim", t1, "--agent", "a1")
	ver := str(claimed, "lease", "version")
	run(0, "", "todo", "renew", t1, "--agent", "a1", "--expected-version", ver)
	renewed := run(0, "renewed", "todo", "show", t1)
	ver = str(renewed, "lease", "version")
	run(0, "", "todo", "transfer", t1, "--agent", "a1", "--to", "a2", "--expected-version", ver)
	transferred := run(0, "transferred", "todo", "show", t1)
	ver = str(transferred, "lease", "version")
	run(0, "", "todo", "release", t1, "--agent", "a2", "--expected-version", ver)
	run(0, "", "todo", "done", t1)
	run(0, "", "evidence", "add", "--goal", "g1", "--kind", "pr", "--status", "info", "PR 12 opened")
	run(0, "", "evidence", "list", "--goal", "g1")
	run(0, "", "handoff", "show", "--goal", "g1")

	run(0, "", "run", "--goal", "g1", "--agent", "a1", "--max-rounds", "1", "--", "true")

	// Gates.
	g := str(run(0, "", "gate", "raise", "--goal", "g1", "--question", "Deploy the v2 API to staging now?"), "id")
	run(0, "", "gate", "list")
	run(0, "", "gate", "show", g)
	run(1, "", "decide", "gate-answer", g, "--option", "approve")
	run(1, "", "gate", "answer", g, "--option", "approve")
	run(1, "gate_open", "decide", "should-run", "--goal", "g1", "--agent", "a1")

	// Goals' runtime status.
	run(0, "", "goal", "pause", "g2", "--reason", "waiting for the docs team")
	run(0, "", "goal", "resume", "g2")
	run(0, "", "goal", "done", "g2")
	run(0, "", "goal", "archive", "g2")

	// Reading what happened.
	run(0, "", "status")
	run(0, "", "quota", "status")
	run(0, "", "events", "--kind", "gate")
	logged := run(0, "", "log", "--limit", "1")
	run(0, "", "explain", str(logged, "0", "decision_id"))
	input := filepath.Join(work, "input.json")
	if err := os.WriteFile(input, []byte(`{"query":"should_run","goal":"g1","agent":"a1","now":"2026-11-29T10:00:00Z"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run(1, "", "policy", "eval", "should_run", "--input", input)
	run(0, "", "review", "--goal", "g1")
	run(0, "", "doctor")
	run(1, "", "check")

	// A human's commands (stdin is no terminal here).
	run(0, "", "agent", "register", "a3", "--host", "shell")
	run(0, "", "adopt")
	loosened := strings.Replace(contractSpec, "rounds: 10", "rounds: 20", 1)
	if err := os.WriteFile(filepath.Join(root, "loopx", "loopx.cue"), []byte(loosened), 0o644); err != nil {
		t.Fatal(err)
	}
	run(1, "loosens_no_terminal", "adopt")

	// Hooks.
	run(0, "", "hooks", "install", "--host", "claude-code", "--goal", "g1", "--agent", "a2")
	// Uninstalling asks for "uninstall" typed at a terminal: none here.
	run(1, "no_terminal", "hooks", "uninstall", "--host", "claude-code")

	// The error envelope: a usage error, an unknown record.
	run(2, "usage", "todo", "add", "--goal", "g1")
	run(2, "unknown_goal", "decide", "should-run", "--goal", "nope", "--agent", "a1")

	// A store loopx refuses to open (emptied): the error envelope, and a
	// decision that fails closed, both saying what is wrong and what to do.
	if err := os.Truncate(filepath.Join(root, ".loopx", "state.db"), 0); err != nil {
		t.Fatal(err)
	}
	run(3, "store_refused", "status")
	run(3, "store_refused", "decide", "should-run", "--goal", "g1", "--agent", "a1")

	var missing []string
	for _, c := range cli.CommandPaths() {
		if !covered[c] && notContract[c] == "" {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		t.Errorf("commands with no contract golden and no reason in notContract: %s", strings.Join(missing, ", "))
	}
}

// commandOf is the command path args run ("loopx todo add"): the leading
// arguments that name commands.
func commandOf(args []string) string {
	paths := cli.CommandPaths()
	cmd := "loopx"
	for _, a := range args {
		if !slices.ContainsFunc(paths, func(p string) bool { return p == cmd+" "+a || strings.HasPrefix(p, cmd+" "+a+" ") }) {
			break
		}
		cmd += " " + a
	}
	return cmd
}

// TestContract_MCP drives `loopx mcp --tools all` over stdio on one project
// and compares with testdata/contract/mcp: tools.json, every tool's name,
// description, input and output schema; <tool>.json, one answer of each
// tool (its structured content, which the output schema validates); and
// error.json, a refusal as the tool error a client reads. A tool without
// an answer here fails the test.
func TestContract_MCP(t *testing.T) {
	work, _ := contractProject(t)
	if code := cli.Run(context.Background(), []string{"todo", "add", "--goal", "g1", "Write the migration guide"}, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatalf("todo add: exit %d", code)
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"should_run", map[string]any{"goal": "g1"}},
		{"round_start", map[string]any{"goal": "g1"}},
		{"prompt", map[string]any{"goal": "g1"}},
		{"round_finish", map[string]any{"round": "ROUND", "outcome": "progress", "summary": "guide drafted",
			"evidence": []any{map[string]any{"kind": "test", "status": "pass", "summary": "go test ./..."}}}},
		{"todo_add", map[string]any{"goal": "g1", "title": "Review the guide", "priority": "P1"}},
		{"evidence_add", map[string]any{"goal": "g1", "summary": "PR 12 opened", "kind": "pr"}},
		{"gate_raise", map[string]any{"goal": "g1", "question": "Publish the migration guide now?"}},
		{"status", map[string]any{"goal": "g1"}},
		{"error", map[string]any{"goal": "nope"}},
	}
	// One session: the frames go in one by one, each after the answer to
	// the one before (round_finish needs round_start's round id).
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(context.Background(), []string{"mcp", "--tools", "all", "--agent", "a1"}, inR, outW, io.Discard)
		outW.Close()
	}()
	dec := json.NewDecoder(outR)
	id := 0
	send := func(method string, params any) json.RawMessage {
		t.Helper()
		id++
		frame, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := inW.Write(append(frame, '\n')); err != nil {
			t.Fatal(err)
		}
		var resp struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := dec.Decode(&resp); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if resp.ID != id || resp.Error != nil {
			t.Fatalf("%s: answer %d, error %s", method, resp.ID, resp.Error)
		}
		return resp.Result
	}
	send("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "contract", "version": "1"}})
	if _, err := inW.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(send("tools/list", map[string]any{}), &list); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(list.Tools, func(a, b map[string]any) int { return strings.Compare(fmt.Sprint(a["name"]), fmt.Sprint(b["name"])) })
	checkGolden(t, filepath.Join("contract", "mcp", "tools.json"), indentJSON(list.Tools))
	answered := map[string]bool{}
	round := ""
	for _, c := range calls {
		tool := c.tool
		if tool == "error" {
			tool = "should_run"
		}
		if r, ok := c.args["round"]; ok && r == "ROUND" {
			c.args["round"] = round
		}
		var res struct {
			IsError    bool `json:"isError"`
			Content    []struct{ Text string }
			Structured json.RawMessage `json:"structuredContent"`
		}
		if err := json.Unmarshal(send("tools/call", map[string]any{"name": tool, "arguments": c.args}), &res); err != nil {
			t.Fatal(err)
		}
		if res.IsError != (c.tool == "error") || len(res.Content) != 1 {
			t.Fatalf("%s: isError %v, %d content blocks: %+v", c.tool, res.IsError, len(res.Content), res.Content)
		}
		doc := string(res.Structured)
		if res.IsError {
			doc = res.Content[0].Text
		} else {
			var v any
			_ = json.Unmarshal(res.Structured, &v)
			doc = indentJSON(v)
			if c.tool == "round_start" {
				var st struct{ Round struct{ ID string } }
				_ = json.Unmarshal(res.Structured, &st)
				round = st.Round.ID
			}
		}
		answered[c.tool] = true
		checkGolden(t, filepath.Join("contract", "mcp", c.tool+".json"), normalizeContract(doc, work))
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Errorf("loopx mcp: exit %d", code)
	}
	for _, tl := range list.Tools {
		if !answered[fmt.Sprint(tl["name"])] {
			t.Errorf("MCP tool %s has no answer in testdata/contract/mcp", tl["name"])
		}
	}
}
