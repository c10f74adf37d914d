package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/testproject"
)

// servedSpec is the project the served tests run in.
const servedSpec = `project: name: "served"
agents: {
	a1: {host: "shell"}
	a2: {host: "shell"}
}
goals: g1: {
	objective: "Work through a server"
	agents: ["a1", "a2"]
	quota: {rounds: 100, min_interval: "0s"}
}
`

// servedProject is a project and how to run loopx in it as a process.
type servedProject struct {
	p   *testproject.Project
	ids map[string]string // named values captured from outputs
}

func newServedProject(t *testing.T) *servedProject {
	return &servedProject{p: testproject.New(t, servedSpec), ids: map[string]string{}}
}

// run runs loopx as its own process in the project, with stdin and extra
// environment variables.
func (sp *servedProject) run(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	env = append(append(sp.p.Env(), "LOOPX_NOW="+testproject.EpochText), env...)
	return loopxProcess(t, sp.p.Root, env, stdin, args...)
}

// startServer starts `loopx serve --detach` in the project (flags: its
// own, default --addr ”, no HTTP) and stops it when the test ends; it
// returns the server's pid.
func (sp *servedProject) startServer(t *testing.T, flags ...string) int {
	t.Helper()
	if len(flags) == 0 {
		flags = []string{"--addr", ""}
	}
	r := sp.run(t, "", nil, append([]string{"serve", "--detach", "--json"}, flags...)...)
	if r.code != 0 {
		t.Fatalf("serve --detach: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var rec struct{ PID int }
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || rec.PID == 0 {
		t.Fatalf("serve --detach --json: %v\n%s", err, r.stdout)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(rec.PID, syscall.SIGCONT)
		if r := sp.run(t, "", nil, "serve", "stop"); r.code != 0 {
			_ = syscall.Kill(rec.PID, syscall.SIGKILL)
		}
	})
	return rec.PID
}

// servedStep is one command of the served sequence: its arguments (with
// {name} replaced by a value captured earlier in the same project),
// stdin, extra environment, and a value to capture from its --json
// output (capture: the name, field: the top-level field).
type servedStep struct {
	args           []string
	stdin          string
	env            []string
	capture, field string
}

var (
	servedIDs  = regexp.MustCompile(`\b[a-z]{1,3}-[0-9a-f]{4,}\b`)
	servedHex  = regexp.MustCompile(`[0-9a-f]{12,}`)
	servedPIDs = regexp.MustCompile(`(pid|process) [0-9]+`)
	servedULID = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)
)

// normalize makes two projects' outputs comparable: their roots and state
// directories, the ids loopx draws at random and the hashes of chains
// that hold them.
func (sp *servedProject) normalize(s string) string {
	s = strings.ReplaceAll(s, sp.p.Root, "ROOT")
	s = strings.ReplaceAll(s, sp.p.StateHome, "STATE")
	s = servedULID.ReplaceAllString(s, "ULID")
	s = servedIDs.ReplaceAllString(s, "ID")
	s = servedHex.ReplaceAllString(s, "HEX")
	return servedPIDs.ReplaceAllString(s, "$1 N")
}

func (sp *servedProject) expand(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		for k, v := range sp.ids {
			a = strings.ReplaceAll(a, "{"+k+"}", v)
		}
		out[i] = a
	}
	return out
}

// mcpFrames is an MCP session: initialize, then one tool call (call: its
// name and arguments). One call a session: a server answers concurrent
// calls in any order, and a status beside a todo_add would show the todo
// or not as they happened to run.
func mcpFrames(call string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"served","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":` + call + `}
`
}

// TestServe_CommandsBehaveTheSameThroughAServer runs one sequence of
// commands (every kind: views, decisions, mutations, a hook, a human
// repair with no terminal) in two identical projects, one with `loopx
// serve` running, each command as its own process: through the server
// they print the same and exit the same (ids and hashes, drawn at random,
// aside).
func TestServe_CommandsBehaveTheSameThroughAServer(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	if testing.Short() {
		t.Skip("starts a server")
	}
	pre := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"rm -rf .loopx"}}`
	steps := []servedStep{
		{args: []string{"todo", "add", "--goal", "g1", "first task", "--json"}, capture: "t1", field: "id"},
		{args: []string{"todo", "add", "--goal", "g1", "second task", "--priority", "high"}},
		{args: []string{"todo", "add", "--goal", "g1", "third", "--priority", "urgent"}},
		{args: []string{"todo", "list"}},
		{args: []string{"todo", "show", "{t1}"}},
		{args: []string{"status"}},
		{args: []string{"status", "--json"}},
		{args: []string{"goal", "list"}},
		{args: []string{"goal", "show", "g1"}},
		{args: []string{"decide", "should-run", "--goal", "g1", "--agent", "a1"}},
		{args: []string{"decide", "permission", "--goal", "g1", "--agent", "a1", "--tool", "Bash", "--command", "rm -rf .loopx"}},
		{args: []string{"round", "start", "--goal", "g1", "--agent", "a1", "--json"}, capture: "r1", field: "round"},
		{args: []string{"round", "show", "{r1}"}},
		{args: []string{"evidence", "add", "--goal", "g1", "--kind", "note", "--status", "pass", "--text", "checked it"}},
		{args: []string{"evidence", "list", "--goal", "g1"}},
		{args: []string{"round", "finish", "{r1}", "--agent", "a1", "--outcome", "progress", "--handoff", "next: the second task"}},
		{args: []string{"handoff", "show", "--goal", "g1"}},
		{args: []string{"todo", "claim", "{t1}", "--agent", "a2"}},
		{args: []string{"todo", "release", "{t1}", "--agent", "a2"}},
		{args: []string{"gate", "raise", "--goal", "g1", "--question", "Should the release go out on Friday?", "--json"}, capture: "g", field: "id"},
		{args: []string{"gate", "list"}},
		{args: []string{"gate", "show", "{g}"}},
		{args: []string{"gate", "answer", "{g}", "--option", "approve"}},
		{args: []string{"decide", "should-run", "--goal", "g1", "--agent", "a1", "--json"}},
		{args: []string{"hook", "claude-code", "--event", "PreToolUse", "--goal", "g1"}, stdin: pre, env: []string{"LOOPX_AGENT=a1"}},
		{args: []string{"prompt", "--goal", "g1", "--agent", "a1"}},
		{args: []string{"quota", "status", "--goal", "g1"}},
		{args: []string{"agent", "list"}},
		{args: []string{"events"}},
		{args: []string{"review"}},
		{args: []string{"review", "--mark"}},
		{args: []string{"check"}},
		{args: []string{"vet"}},
		{args: []string{"log"}},
		{args: []string{"doctor"}},
		{args: []string{"mcp", "--agent", "a1", "--tools", "all"}, stdin: mcpFrames(`{"name":"status","arguments":{"goal":"g1"}}`)},
		{args: []string{"mcp", "--agent", "a1", "--tools", "all"}, stdin: mcpFrames(`{"name":"todo_add","arguments":{"goal":"g1","title":"from MCP"}}`)},
		{args: []string{"no-such-command"}},
		{args: []string{"todo", "show", "t-0000"}},
	}
	plain, served := newServedProject(t), newServedProject(t)
	served.startServer(t)
	for _, st := range steps {
		var got [2]result
		for i, sp := range []*servedProject{plain, served} {
			args := sp.expand(st.args)
			got[i] = sp.run(t, st.stdin, st.env, args...)
			if st.capture != "" {
				var doc map[string]any
				if err := json.Unmarshal([]byte(got[i].stdout), &doc); err != nil {
					t.Fatalf("loopx %v: not JSON: %v\n%s%s", args, err, got[i].stdout, got[i].stderr)
				}
				v, _ := doc[st.field].(string)
				if m, ok := doc[st.field].(map[string]any); ok {
					v, _ = m["id"].(string)
				}
				if v == "" {
					t.Fatalf("loopx %v: no %s in\n%s", args, st.field, got[i].stdout)
				}
				sp.ids[st.capture] = v
			}
			got[i].stdout, got[i].stderr = sp.normalize(got[i].stdout), sp.normalize(got[i].stderr)
		}
		name := strings.Join(st.args, " ")
		if got[0] != got[1] {
			t.Errorf("loopx %s: in process exit %d\n%s%s\nthrough the server exit %d\n%s%s", name,
				got[0].code, got[0].stdout, got[0].stderr, got[1].code, got[1].stdout, got[1].stderr)
		}
	}
}

// stoppedServer starts a server in a project of its own and stops it
// (SIGSTOP, as Ctrl-Z in its terminal would); it is resumed when the
// test ends, before startServer stops it.
func stoppedServer(t *testing.T) (*servedProject, int) {
	t.Helper()
	sp := newServedProject(t)
	pid := sp.startServer(t)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	return sp, pid
}

// TestServe_Stuck: a server that stops answering makes a
// PreToolUse hook answer blocked (exit 2) and a Stop hook warn (exit 0)
// within the hook's deadline, never wait for the host to let the call
// through; another command exits 3.
func TestServe_Stuck(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	sp, _ := stoppedServer(t)
	fast := []string{"LOOPX_TEST_FORWARD_TIMEOUT=300ms"}
	pre := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`
	r := sp.run(t, pre, fast, "hook", "claude-code", "--event", "PreToolUse", "--goal", "g1")
	if r.code != 2 || !strings.Contains(r.stderr, "blocked: the loopx server") || r.stdout != "" {
		t.Errorf("PreToolUse with a stuck server: exit %d, stdout %q, stderr %q; want exit 2, blocked", r.code, r.stdout, r.stderr)
	}
	r = sp.run(t, `{"hook_event_name":"Stop","session_id":"s"}`, fast, "hook", "claude-code", "--event", "Stop", "--goal", "g1")
	if r.code != 0 || !strings.Contains(r.stdout, "systemMessage") {
		t.Errorf("Stop with a stuck server: exit %d, stdout %q; want exit 0 with a warning", r.code, r.stdout)
	}
	start := time.Now()
	r = sp.run(t, "", fast, "status")
	if r.code != 3 || !strings.Contains(r.stderr, "did not answer within 300ms") {
		t.Errorf("status with a stuck server: exit %d, %q; want 3", r.code, r.stderr)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("status waited %s on a stuck server", time.Since(start))
	}
}

// TestServe_SocketNotTheServers: a record naming a socket another process
// listens on is refused: the client never sends it a command (exit 3;
// a PreToolUse hook is blocked).
func TestServe_SocketNotTheServers(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	if testing.Short() {
		t.Skip("starts a server")
	}
	sp := newServedProject(t)
	pid := sp.startServer(t)
	// The server's record, rewritten to name the test's pid: the socket's
	// peer (the real server) is then not the recorded one.
	dir := anchorDirOf(t, sp)
	b, err := os.ReadFile(dir + "/serve.json")
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(b), `"pid": `+itoa(pid), `"pid": `+itoa(os.Getpid()), 1)
	if err := os.WriteFile(dir+"/serve.json", []byte(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.WriteFile(dir+"/serve.json", b, 0o600)
	r := sp.run(t, "", nil, "status")
	if r.code != 3 || !strings.Contains(r.stderr, "not the loopx server's") {
		t.Errorf("status to a socket not the server's: exit %d, %q; want 3", r.code, r.stderr)
	}
	pre := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`
	r = sp.run(t, pre, nil, "hook", "claude-code", "--event", "PreToolUse", "--goal", "g1")
	if r.code != 2 || r.stdout != "" {
		t.Errorf("PreToolUse to a socket not the server's: exit %d, %q; want 2", r.code, r.stdout)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// anchorDirOf is the project's anchor directory.
func anchorDirOf(t *testing.T, sp *servedProject) string {
	t.Helper()
	dir, err := anchor.DirIn(sp.p.StateHome, sp.p.Root)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestServe_KillNineLosesNoAcknowledgedWrite kills the server with
// SIGKILL while clients add todos through it, three times: every add
// that exited 0 is in the store once, none is there twice, and the store
// opens without repair afterwards.
func TestServe_KillNineLosesNoAcknowledgedWrite(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	if testing.Short() {
		t.Skip("starts servers")
	}
	sp := newServedProject(t)
	acked := map[string]bool{}
	var mu sync.Mutex
	n := 0
	for cycle := range 3 {
		pid := sp.startServer(t)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 6 {
					title := fmt.Sprintf("c%d w%d n%d", cycle, w, i)
					r := sp.run(t, "", nil, "todo", "add", "--goal", "g1", title)
					mu.Lock()
					n++
					if r.code == 0 {
						acked[title] = true
					}
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(150+100*cycle) * time.Millisecond)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
	}
	r := sp.run(t, "", nil, "todo", "list", "--goal", "g1", "--json")
	if r.code != 0 {
		t.Fatalf("todo list after the kills: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	var todos []struct{ Title string }
	if err := json.Unmarshal([]byte(r.stdout), &todos); err != nil {
		var doc struct{ Todos []struct{ Title string } }
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("todo list --json: %v\n%s", err, r.stdout)
		}
		todos = doc.Todos
	}
	seen := map[string]int{}
	for _, td := range todos {
		seen[td.Title]++
	}
	lost, twice := 0, 0
	for title := range acked {
		if seen[title] == 0 {
			lost++
			t.Errorf("acknowledged %q is not in the store", title)
		}
	}
	for title, k := range seen {
		if k > 1 {
			twice++
			t.Errorf("%q is in the store %d times", title, k)
		}
	}
	t.Logf("%d adds, %d acknowledged, %d in the store, %d acknowledged lost, %d applied twice", n, len(acked), len(seen), lost, twice)
	if r := sp.run(t, "", nil, "doctor"); r.code != 0 {
		t.Errorf("doctor after the kills: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestServe_PeerClaimingAnotherAgent: a process an agent runs (a shell
// started with LOOPX_AGENT=a1 above it) that asks for a round as a2, or
// sends LOOPX_AGENT=a2 itself, is refused through the server as it is in
// its own process: the server reads who the caller is from the caller's
// ancestry, never from what the request says.
func TestServe_PeerClaimingAnotherAgent(t *testing.T) {
	t.Parallel() // its own projects; it waits on the processes it starts
	if testing.Short() {
		t.Skip("starts a server")
	}
	plain, served := newServedProject(t), newServedProject(t)
	served.startServer(t)
	var got [2][]result
	for i, sp := range []*servedProject{plain, served} {
		sp.run(t, "", nil, "todo", "add", "--goal", "g1", "first task")
		for _, line := range []string{
			"loopx round start --goal g1 --agent a2",
			"LOOPX_AGENT=a2 loopx round start --goal g1 --agent a2",
			"LOOPX_AGENT=a2 loopx round start --goal g1",
		} {
			cmd := exec.Command("sh", "-c", line)
			cmd.Dir = sp.p.Root
			cmd.Env = append(append(os.Environ(), sp.p.Env()...), "LOOPX_NOW="+testproject.EpochText, "LOOPX_AGENT=a1")
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			res := result{stdout: sp.normalize(out.String()), stderr: sp.normalize(errb.String())}
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				res.code = ee.ExitCode()
			}
			if res.code != 1 || !strings.Contains(res.stderr, "may act only as a1") {
				t.Errorf("%s from a1's shell (server %v): exit %d, want 1 (acts only as a1)\n%s%s", line, i == 1, res.code, res.stdout, res.stderr)
			}
			got[i] = append(got[i], res)
		}
	}
	for j := range got[0] {
		if got[0][j] != got[1][j] {
			t.Errorf("step %d: in process exit %d %s; through the server exit %d %s", j, got[0][j].code, got[0][j].stderr, got[1][j].code, got[1][j].stderr)
		}
	}
}

// TestServe_HookPastItsDeadlineLetsTheStoreGo: a hook that answers at its
// deadline inside the server (blocked, exit 2) leaves its evaluation
// running; when that work ends its engine is closed, so the kept store is
// free again and the next command through the server answers at once.
// (The store stayed held for ever: every later command waited until its
// own timeout.)
func TestServe_HookPastItsDeadlineLetsTheStoreGo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	sp := newServedProject(t)
	pid := sp.startServer(t)
	pre := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`
	r := sp.run(t, pre, []string{"LOOPX_AGENT=a1", "LOOPX_TEST_HOOK_DEADLINE=1ms"}, "hook", "claude-code", "--event", "PreToolUse", "--goal", "g1")
	if r.code != 2 || strings.Contains(r.stdout, `"allow"`) {
		t.Fatalf("a hook past its deadline: exit %d %q %q, want blocked (2)", r.code, r.stdout, r.stderr)
	}
	start := time.Now()
	r = sp.run(t, "", []string{"LOOPX_TEST_FORWARD_TIMEOUT=15s"}, "todo", "add", "--goal", "g1", "after the hook")
	if r.code != 0 {
		t.Fatalf("the next command through the server: exit %d %s%s (after %s)", r.code, r.stdout, r.stderr, time.Since(start))
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the server is gone: %v", err)
	}
}

// TestServe_LostAnswerIsNotAppliedTwice: a server that ends the
// connection after a mutation committed, before its exit frame (as a
// lost connection would), is asked again by the client with the same
// idempotency key and answers with what it answered the first time: the
// client prints it once and exits as the command did, and the todo exists
// once, not twice. (Before keys, the client exited 3 and a second add
// made a second todo.)
func TestServe_LostAnswerIsNotAppliedTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	plain, served := newServedProject(t), newServedProject(t)
	t.Setenv("LOOPX_TEST_DROP_ANSWER", "1")
	served.startServer(t)
	var got [2]result
	for i, sp := range []*servedProject{plain, served} {
		r := sp.run(t, "", nil, "todo", "add", "--goal", "g1", "only once")
		got[i] = result{code: r.code, stdout: sp.normalize(r.stdout), stderr: sp.normalize(r.stderr)}
	}
	if got[0] != got[1] || got[1].code != 0 {
		t.Fatalf("todo add through a server that lost its answer: exit %d\n%s%s\nin its own process: exit %d\n%s%s",
			got[1].code, got[1].stdout, got[1].stderr, got[0].code, got[0].stdout, got[0].stderr)
	}
	r := served.run(t, "", nil, "todo", "list", "--goal", "g1", "--json")
	if r.code != 0 {
		t.Fatalf("todo list: exit %d\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, `"only once"`); n != 1 {
		t.Fatalf("the todo is in the store %d times, want once:\n%s", n, r.stdout)
	}
}

// TestServe_RunThroughTheServer: loopx run while a server runs goes
// through it (it refused, exit 2, before): the server runs the rounds,
// the agent command is the client's child, confined or not, and its own
// loopx calls act as the round's agent and nothing else — another
// agent's round is refused, whatever its environment claims.
func TestServe_RunThroughTheServer(t *testing.T) {
	t.Parallel() // its own projects; it waits on the processes it starts
	if testing.Short() {
		t.Skip("starts servers")
	}
	const agent = `loopx todo add --goal g1 "added inside" || exit 11
loopx round start --goal g1 --agent a2 >/dev/null 2>&1 && exit 12
LOOPX_AGENT=a2 loopx round start --goal g1 --agent a2 >/dev/null 2>&1 && exit 13
loopx adopt </dev/null >/dev/null 2>&1 && exit 14
echo '{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}' | loopx hook claude-code --event PreToolUse --goal g1 || exit 15
echo work >> work.txt
echo agent done`
	for _, mode := range []string{"auto", "off"} {
		t.Run(mode, func(t *testing.T) {
			sp := &servedProject{p: testproject.New(t, servedSpec+"project: sandbox: mode: \""+mode+"\"\n"), ids: map[string]string{}}
			pid := sp.startServer(t)
			sp.run(t, "", nil, "todo", "add", "--goal", "g1", "first task")
			r := sp.run(t, "", nil, "run", "--goal", "g1", "--agent", "a1", "--max-rounds", "1", "--", "sh", "-c", agent)
			if r.code != 0 || !strings.Contains(r.stderr, "agent done") || !strings.Contains(r.stderr, "finished: progress") {
				t.Fatalf("run through the server: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if syscall.Kill(pid, 0) != nil {
				t.Fatal("the server is gone")
			}
			r = sp.run(t, "", nil, "events", "--kind", "todo.added")
			if !regexp.MustCompile(`todo\.added +g1 +a1 .*added inside`).MatchString(r.stdout) {
				t.Fatalf("the agent's todo was not added as a1:\n%s", r.stdout)
			}
			r = sp.run(t, "", nil, "events", "--kind", "round.started")
			// The agent's column, not anywhere on the line: a round's id
			// is random and may hold "a2" (r-a2ff).
			if strings.Count(r.stdout, "round.started") != 1 || regexp.MustCompile(`round\.started +g1 +a2 `).MatchString(r.stdout) {
				t.Fatalf("rounds started, want one of a1's:\n%s", r.stdout)
			}
		})
	}
}

// TestServe_TwoDetachesAtOnce: two `serve --detach` started together: one
// runs the server, the other names it (exit 2), and the loser's output
// never lands in the running server's serve.log.
func TestServe_TwoDetachesAtOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts servers")
	}
	sp := newServedProject(t)
	var wg sync.WaitGroup
	res := make([]result, 2)
	for i := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = sp.run(t, "", nil, "serve", "--detach", "--json", "--addr", "")
		}()
	}
	wg.Wait()
	won, lost := res[0], res[1]
	if won.code != 0 {
		won, lost = lost, won
	}
	var rec struct{ PID int }
	if err := json.Unmarshal([]byte(won.stdout), &rec); won.code != 0 || err != nil || rec.PID == 0 {
		t.Fatalf("no detach won: %+v", res)
	}
	t.Cleanup(func() {
		if r := sp.run(t, "", nil, "serve", "stop"); r.code != 0 {
			_ = syscall.Kill(rec.PID, syscall.SIGKILL)
		}
	})
	// --json: the error is on stdout when this process saw the server, on
	// stderr when its child found it (the child's log, shown).
	if said := lost.stdout + lost.stderr; lost.code != 2 || !strings.Contains(said, fmt.Sprintf("already runs for this project (pid %d,", rec.PID)) {
		t.Errorf("the second detach: exit %d, %q; want 2 naming pid %d", lost.code, said, rec.PID)
	}
	dir := anchorDirOf(t, sp)
	b, err := os.ReadFile(filepath.Join(dir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	if log := string(b); !strings.HasPrefix(log, "loopx: serving ") || strings.Contains(log, "already runs") {
		t.Errorf("serve.log:\n%s", log)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "serve.log.starting-*")); len(left) != 0 {
		t.Errorf("start logs left: %v", left)
	}
}

// TestServe_AForgedRecordIsNotBelieved: a process that is not loopx
// writes its own pid and socket into the server record and answers every
// request with "allow": a PreToolUse hook (git push --force, which the
// spec denies) and a command never take its answer — the client checks
// that the socket's peer runs this loopx program, and fails closed
// (blocked, exit 2; exit 3) instead. (The record was believed: the hook
// answered allow.)
func TestServe_AForgedRecordIsNotBelieved(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	if testing.Short() {
		t.Skip("builds and starts a process")
	}
	sp := noForcePushProject(t)
	dir := anchorDirOf(t, sp)
	startFakeServer(t, dir, filepath.Join(dir, "fake.sock"))
	pre := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"git push --force origin main"}}`
	r := sp.run(t, pre, []string{"LOOPX_AGENT=a1"}, "hook", "claude-code", "--event", "PreToolUse", "--goal", "g1")
	if r.code != 2 || strings.Contains(r.stdout, `"allow"`) || !strings.Contains(r.stderr, "not the loopx server") {
		t.Fatalf("a hook with a forged server record: exit %d\n%s%s\nwant blocked (2), the peer refused", r.code, r.stdout, r.stderr)
	}
	r = sp.run(t, "", nil, "decide", "should-run", "--goal", "g1", "--agent", "a1")
	if r.code != 3 || strings.Contains(r.stdout, "allow") || !strings.Contains(r.stderr, "not the loopx server") {
		t.Fatalf("decide with a forged server record: exit %d\n%s%s\nwant exit 3, the peer refused", r.code, r.stdout, r.stderr)
	}
}

// TestServe_HookOfAGoneServerIsAnsweredInProcess: a server record whose
// pid is alive (reused by another process, or a killed server not reaped
// yet) and whose socket no one listens on any more: a hook reads its
// payload to forward it, finds no server, and is answered in process on
// that payload. (It was answered "payload is empty": the payload had been
// read, and a PreToolUse was blocked, a Stop hook stopped governing.)
func TestServe_HookOfAGoneServerIsAnsweredInProcess(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	if testing.Short() {
		t.Skip("starts processes")
	}
	sp := newServedProject(t)
	if r := sp.run(t, "", nil, "todo", "add", "--goal", "g1", "a todo"); r.code != 0 {
		t.Fatalf("todo add: exit %d %s", r.code, r.stderr)
	}
	dir := anchorDirOf(t, sp)
	short, err := os.MkdirTemp("", "lx") // a socket's path must fit sun_path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	sock := filepath.Join(short, "gone.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close() // the socket's file stays; a connect is refused
	alive := exec.Command("sleep", "60")
	if err := alive.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	t.Cleanup(func() { _ = alive.Process.Kill(); _ = alive.Wait() })
	rec, _ := json.Marshal(map[string]any{"pid": alive.Process.Pid, "start": time.Now().UTC().Truncate(time.Second), "socket": sock, "root": sp.p.Root})
	if err := os.WriteFile(filepath.Join(dir, "serve.json"), rec, 0o600); err != nil {
		t.Fatal(err)
	}
	pre := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`
	r := sp.run(t, pre, []string{"LOOPX_AGENT=a1"}, "hook", "claude-code", "--event", "PreToolUse", "--goal", "g1")
	if r.code != 0 || strings.Contains(r.stderr, "empty") {
		t.Fatalf("a PreToolUse hook with a gone server: exit %d\n%s%s\nwant it answered in process (exit 0)", r.code, r.stdout, r.stderr)
	}
	stop := `{"hook_event_name":"Stop","session_id":"s"}`
	r = sp.run(t, stop, []string{"LOOPX_AGENT=a1"}, "hook", "claude-code", "--event", "Stop", "--goal", "g1")
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "empty") {
		t.Fatalf("a Stop hook with a gone server: exit %d\n%s%s\nwant it answered in process", r.code, r.stdout, r.stderr)
	}
}

// noForcePushProject is a served project whose spec denies git push
// --force, adopted (by a first command).
func noForcePushProject(t *testing.T) *servedProject {
	t.Helper()
	sp := newServedProject(t)
	sp.p.WriteSpec(t, strings.Replace(servedSpec, `quota: {rounds: 100, min_interval: "0s"}`,
		`quota: {rounds: 100, min_interval: "0s"}
	scope: commands: deny: ["git push --force*"]`, 1))
	if r := sp.run(t, "", nil, "todo", "add", "--goal", "g1", "adopt the spec"); r.code != 0 {
		t.Fatalf("todo add: exit %d %s", r.code, r.stderr)
	}
	return sp
}

// startFakeServer builds testdata/fakeserver and runs it until the test
// ends: it listens on sock, writes itself into recordDir's serve.json and
// answers every request "allow".
func startFakeServer(t *testing.T, recordDir, sock string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fakeserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/fakeserver").CombinedOutput(); err != nil {
		t.Fatalf("building the fake server: %v\n%s", err, out)
	}
	fake := exec.Command(bin, recordDir, sock)
	out, err := fake.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fake.Process.Kill(); _ = fake.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the fake server did not start: %q", line)
	}
}

// TestBroker_ASocketBesideIsNotBelieved: $LOOPX_BROKER (or a
// /run/loopx/broker.sock) naming a socket a process beside this one
// listens on, outside any confinement: loopx ignores it, says so, and
// answers as it does without a broker — a PreToolUse hook for git push
// --force is denied by the spec, not allowed by that process. (Every
// command, hooks included, went to the socket unchecked.)
func TestBroker_ASocketBesideIsNotBelieved(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	if testing.Short() {
		t.Skip("builds and starts a process")
	}
	sp := noForcePushProject(t)
	short, err := os.MkdirTemp("", "lx") // a socket's path must fit sun_path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	sock := filepath.Join(short, "broker.sock")
	startFakeServer(t, short, sock)
	pre := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"git push --force origin main"}}`
	r := sp.run(t, pre, []string{"LOOPX_AGENT=a1", "LOOPX_BROKER=" + sock}, "hook", "claude-code", "--event", "PreToolUse", "--goal", "g1")
	if r.code != 0 || !strings.Contains(r.stdout, `"deny"`) || !strings.Contains(r.stderr, "not a confinement's loopx broker") {
		t.Fatalf("a hook with a broker socket beside it: exit %d\n%s%s\nwant the spec's deny, the socket ignored", r.code, r.stdout, r.stderr)
	}
}

// TestServe_ACommandLeavesTheInputItDoesNotRead: a shell loop reads its
// lines and runs a command for each through the server: every line is a
// todo, as without a server — a command that reads no standard input
// leaves it to the next (the client sends its input only when the server
// asks for it). (The first command sent the whole rest of the loop's
// input to the server: one todo of three, exit 0.)
func TestServe_ACommandLeavesTheInputItDoesNotRead(t *testing.T) {
	t.Parallel() // its own projects; it waits on the processes it starts
	if testing.Short() {
		t.Skip("starts a server")
	}
	plain, served := newServedProject(t), newServedProject(t)
	served.startServer(t)
	for _, sp := range []*servedProject{plain, served} {
		loop := exec.Command("sh", "-c", `while read -r t; do loopx todo add --goal g1 "$t" || exit 9; done`)
		loop.Dir = sp.p.Root
		loop.Env = append(append(os.Environ(), sp.p.Env()...), "LOOPX_NOW="+testproject.EpochText)
		loop.Stdin = strings.NewReader("four\nfive\nsix\n")
		if out, err := loop.CombinedOutput(); err != nil {
			t.Fatalf("the loop: %v\n%s", err, out)
		}
		r := sp.run(t, "", nil, "todo", "list", "--goal", "g1", "--json")
		for _, title := range []string{"four", "five", "six"} {
			if !strings.Contains(r.stdout, `"`+title+`"`) {
				t.Errorf("todo %q missing:\n%s", title, r.stdout)
			}
		}
	}
}

// TestServe_StoppedServer: a server stopped by a signal (Ctrl-Z in its
// terminal) fails a waiting command in seconds, saying so and how to
// resume it, instead of after the command's five-minute timeout; a
// PreToolUse hook is blocked. Once resumed it answers again.
func TestServe_StoppedServer(t *testing.T) {
	t.Parallel() // its own project and server; it waits on the processes it starts
	if testing.Short() {
		t.Skip("starts a server")
	}
	sp, pid := stoppedServer(t)
	start := time.Now()
	r := sp.run(t, "", nil, "status")
	want := "loopx: the loopx server is stopped (pid " + itoa(pid) + ": Ctrl-Z in its terminal, or a stop signal) and did not answer: resume it (`kill -CONT " + itoa(pid) + "`"
	if r.code != 3 || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("status with a stopped server: exit %d, stderr %q; want exit 3, %q…", r.code, r.stderr, want)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("status waited %s on a stopped server", d)
	}
	pre := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`
	r = sp.run(t, pre, nil, "hook", "claude-code", "--event", "PreToolUse", "--goal", "g1")
	if r.code != 2 || !strings.Contains(r.stderr, "blocked: the loopx server") || r.stdout != "" {
		t.Errorf("PreToolUse with a stopped server: exit %d, stdout %q, stderr %q; want exit 2, blocked", r.code, r.stdout, r.stderr)
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if r := sp.run(t, "", nil, "status"); r.code != 0 {
		t.Errorf("status after the server resumed: exit %d, %s", r.code, r.stderr)
	}
}

// TestServe_HookFromARemovedDirectory: a hook whose working directory was
// removed cannot send the server its request (no directory to name); it
// is answered as any hook's error there: a PreToolUse blocked (exit 2,
// never exit 3, which the host lets through), a Stop warned.
func TestServe_HookFromARemovedDirectory(t *testing.T) {
	t.Parallel() // its own project and server
	if testing.Short() {
		t.Skip("starts a server")
	}
	sp := newServedProject(t)
	sp.startServer(t)
	gone := filepath.Join(t.TempDir(), "gone")
	hook := func(payload, event string) result {
		t.Helper()
		// The shell enters the directory and removes it: loopx starts there.
		cmd := exec.Command("sh", "-c", `mkdir "$1" && cd "$1" && rmdir "$1" && shift && exec loopx "$@"`,
			"sh", gone, "hook", "claude-code", "--event", event, "--goal", "g1")
		cmd.Env = append(append(os.Environ(), sp.p.Env()...), "LOOPX_PROJECT="+sp.p.Root)
		return runResult(t, cmd, payload)
	}
	r := hook(`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`, "PreToolUse")
	if r.code != 2 || !strings.Contains(r.stderr, "loopx hook: blocked: ") || r.stdout != "" {
		t.Errorf("PreToolUse from a removed directory: exit %d, stdout %q, stderr %q; want exit 2, blocked", r.code, r.stdout, r.stderr)
	}
	r = hook(`{"hook_event_name":"Stop","session_id":"s"}`, "Stop")
	if r.code != 0 || !strings.Contains(r.stdout, "systemMessage") {
		t.Errorf("Stop from a removed directory: exit %d, stdout %q, stderr %q; want exit 0 with a warning", r.code, r.stdout, r.stderr)
	}
}

// TestServe_StopAStoppedServer: serve stop stops a server stopped by a
// signal (Ctrl-Z in its terminal) at once, as one that runs; it waited
// out its minute and failed.
func TestServe_StopAStoppedServer(t *testing.T) {
	t.Parallel() // its own project and server
	if testing.Short() {
		t.Skip("starts a server")
	}
	sp, pid := stoppedServer(t)
	start := time.Now()
	r := sp.run(t, "", nil, "serve", "stop")
	if want := "loopx serve: stopped (pid " + itoa(pid) + ")\n"; r.code != 0 || r.stdout != want {
		t.Errorf("serve stop of a stopped server: exit %d, stdout %q, stderr %q; want exit 0, %q", r.code, r.stdout, r.stderr, want)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("serve stop waited %s on a stopped server", d)
	}
}

// TestServe_RelativeProjectDirOfTheCaller: a relative $CLAUDE_PROJECT_DIR
// names a directory from the hook's working directory, through a server
// as in process; the server read it from its own (the project root here)
// and let through a hook that in process is blocked.
func TestServe_RelativeProjectDirOfTheCaller(t *testing.T) {
	t.Parallel() // its own project and server
	if testing.Short() {
		t.Skip("starts a server")
	}
	sp := newServedProject(t)
	sub := filepath.Join(sp.p.Root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	pre := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`
	hook := func() result {
		t.Helper()
		env := append(sp.p.Env(), "LOOPX_NOW="+testproject.EpochText, "CLAUDE_PROJECT_DIR=.")
		return loopxProcess(t, sub, env, pre, "hook", "claude-code", "--event", "PreToolUse", "--goal", "g1", "--agent", "a1", "--project", "..")
	}
	want := "is not the one that installed this hook (" + sub + ", $CLAUDE_PROJECT_DIR)"
	for _, how := range []string{"in process", "through the server"} {
		if how == "through the server" {
			sp.startServer(t)
		}
		if r := hook(); r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: PreToolUse from sub/ with CLAUDE_PROJECT_DIR=.: exit %d, stdout %q, stderr %q; want exit 2, %q", how, r.code, r.stdout, r.stderr, want)
		}
	}
}

// TestServe_RelativeSettingsOfTheCaller: hooks install --settings with a
// relative file writes it from the caller's working directory, through a
// server as in process; the server wrote it from its own (outside the
// project here) and printed the same line.
func TestServe_RelativeSettingsOfTheCaller(t *testing.T) {
	t.Parallel() // its own project and server
	if testing.Short() {
		t.Skip("starts a server")
	}
	spec := strings.Replace(servedSpec, `a2: {host: "shell"}`, "a2: {host: \"shell\"}\n\tc1: {host: \"claude-code\"}", 1)
	sp := &servedProject{p: testproject.New(t, spec), ids: map[string]string{}}
	sub := filepath.Join(sp.p.Root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(sp.p.Env(), "LOOPX_NOW="+testproject.EpochText)
	for _, how := range []string{"in process", "through the server"} {
		name := strings.ReplaceAll(how, " ", "-") + ".json"
		if how == "through the server" {
			sp.startServer(t)
		}
		r := loopxProcess(t, sub, env, "", "hooks", "install", "--host", "claude-code", "--agent", "c1", "--settings", "../"+name)
		if r.code != 0 {
			t.Fatalf("%s: hooks install: exit %d\n%s%s", how, r.code, r.stdout, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(sp.p.Root, name)); err != nil {
			t.Errorf("%s: hooks install --settings ../%s from sub/ wrote no %s in the project: %v\n%s", how, name, name, err, r.stdout)
		}
		_ = os.Remove(filepath.Join(filepath.Dir(sp.p.Root), name))
	}
}

// TestServe_InitWhileServedChangesNothing: `loopx init --force` in a
// project whose server runs is refused at once (exit 2, naming the
// server) and leaves the spec as it was; it rewrote the spec, then failed
// on the store's lock after 30 s.
func TestServe_InitWhileServedChangesNothing(t *testing.T) {
	t.Parallel() // its own project and server
	if testing.Short() {
		t.Skip("starts a server")
	}
	sp := newServedProject(t)
	pid := sp.startServer(t)
	spec := filepath.Join(sp.p.Root, "loopx", "loopx.cue")
	before, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := sp.run(t, "", nil, "init", "--force", "--goal", "g9", "--agent", "a9", "--objective", "Another goal")
	want := "loopx: a loopx server runs for " + sp.p.Root + " (pid " + itoa(pid) + "): stop it first (`loopx serve stop`), then run init\n"
	if r.code != 2 || r.stderr != want {
		t.Errorf("init --force with a server running: exit %d, stderr %q; want exit 2, %q", r.code, r.stderr, want)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("init waited %s", d)
	}
	if after, _ := os.ReadFile(spec); string(after) != string(before) {
		t.Errorf("init changed the spec while refused:\n%s", after)
	}
}
