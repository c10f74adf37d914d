package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// httpClient is a client of a served project's HTTP API: its address
// and token, read as a script would (serve status --json, token_file).
type httpClient struct {
	base, token string
}

func newHTTPClient(t *testing.T, sp *servedProject) httpClient {
	t.Helper()
	r := sp.run(t, "", nil, "serve", "status", "--json")
	var st struct {
		Addr      string `json:"addr"`
		TokenFile string `json:"token_file"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Addr == "" || st.TokenFile == "" {
		t.Fatalf("serve status --json: %v\n%s", err, r.stdout)
	}
	fi, err := os.Stat(st.TokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v %v, want mode 0600", st.TokenFile, fi, err)
	}
	tok, err := os.ReadFile(st.TokenFile)
	if err != nil {
		t.Fatal(err)
	}
	return httpClient{base: "http://" + st.Addr, token: strings.TrimSpace(string(tok))}
}

func (c httpClient) do(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServe_HTTP: with `loopx serve` on 127.0.0.1, OPA's Data API answers
// each of the four decisions with the document `loopx decide … --json`
// prints (logged like the CLI's), every /v1 document is the read
// command's --json output byte for byte, and /v1/stream sends a state
// event and the changed decision when a command commits.
func TestServe_HTTP(t *testing.T) {
	t.Parallel() // its own project; it waits on the server it starts
	if testing.Short() {
		t.Skip("starts a server")
	}
	sp := newServedProject(t)
	sp.startServer(t, "--addr", "127.0.0.1:0")
	c := newHTTPClient(t, sp)

	todo := sp.id(t, "todo", "add", "--goal", "g1", "first task")
	gate := sp.id(t, "gate", "raise", "--goal", "g1", "--question", "Should the release go out on Friday?")

	for _, d := range []struct {
		path, input string
		cli         []string
	}{
		{"run", `{"goal":"g1","agent":"a1"}`, []string{"decide", "should-run", "--goal", "g1", "--agent", "a1", "--json"}},
		{"permission", `{"goal":"g1","agent":"a1","tool":"Bash","command":"rm -rf .loopx"}`, []string{"decide", "permission", "--goal", "g1", "--agent", "a1", "--tool", "Bash", "--command", "rm -rf .loopx", "--json"}},
		{"claim", `{"agent":"a2","todo":"` + todo + `"}`, []string{"decide", "claim", todo, "--agent", "a2", "--json"}},
		{"gate", `{"gate":"` + gate + `","option":"approve","as":"agent:a1"}`, []string{"decide", "gate-answer", gate, "--option", "approve", "--as", "agent:a1", "--json"}},
	} {
		code, body := c.do(t, "POST", "/v1/data/loopx/"+d.path+"/decision", `{"input":`+d.input+`}`)
		var env struct {
			Result     json.RawMessage `json:"result"`
			DecisionID string          `json:"decision_id"`
		}
		if err := json.Unmarshal([]byte(body), &env); code != 200 || err != nil || env.DecisionID == "" {
			t.Fatalf("%s decision: %d %s", d.path, code, body)
		}
		cli := sp.run(t, "", nil, d.cli...)
		if got, want := sp.normalize(string(env.Result)), sp.normalize(compactJSON(t, cli.stdout)); got != want {
			t.Errorf("%s decision over HTTP:\n%s\nloopx %s:\n%s", d.path, got, strings.Join(d.cli, " "), want)
		}
		_, logged := c.do(t, "GET", "/v1/decisions?limit=2", "")
		if !strings.Contains(logged, env.DecisionID) {
			t.Errorf("%s decision %s is not in the decision log:\n%s", d.path, env.DecisionID, logged)
		}
	}

	for _, d := range []struct {
		path string
		cli  []string
	}{
		{"/v1/status", []string{"status", "--json"}},
		{"/v1/goals", []string{"goal", "list", "--json"}},
		{"/v1/goals/g1", []string{"goal", "show", "g1", "--json"}},
		{"/v1/todos?goal=g1", []string{"todo", "list", "--goal", "g1", "--json"}},
		{"/v1/todos/" + todo, []string{"todo", "show", todo, "--json"}},
		{"/v1/gates", []string{"gate", "list", "--json"}},
		{"/v1/gates/" + gate, []string{"gate", "show", gate, "--json"}},
		{"/v1/evidence?goal=g1", []string{"evidence", "list", "--goal", "g1", "--json"}},
		{"/v1/quota?goal=g1", []string{"quota", "status", "--goal", "g1", "--json"}},
		{"/v1/agents", []string{"agent", "list", "--json"}},
		{"/v1/events?limit=3", []string{"events", "--limit", "3", "--json"}},
	} {
		code, body := c.do(t, "GET", d.path, "")
		cli := sp.run(t, "", nil, d.cli...)
		if code != 200 || body != cli.stdout {
			t.Errorf("GET %s: %d\n%s\nloopx %s (exit %d):\n%s", d.path, code, body, strings.Join(d.cli, " "), cli.code, cli.stdout)
		}
	}
	if code, body := c.do(t, "GET", "/v1/todos/t-0000", ""); code != 404 || !strings.Contains(body, `"unknown_todo"`) {
		t.Errorf("an unknown todo: %d %s, want 404 naming unknown_todo", code, body)
	}

	// The stream: a state event at once, then one per commit, and the
	// decision that changed.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", c.base+"/v1/stream?goal=g1&agent=a2", nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %v %v", err, resp)
	}
	defer resp.Body.Close()
	events := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if ev, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				events <- ev
			}
		}
		close(events)
	}()
	// next waits for an event of each kind wanted, in any order (the
	// watch may see a commit before the stream's poll of the marker does).
	next := func(want ...string) {
		t.Helper()
		left := map[string]bool{}
		for _, w := range want {
			left[w] = true
		}
		for len(left) > 0 {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("the stream ended before events %v", left)
				}
				delete(left, ev)
			case <-ctx.Done():
				t.Fatalf("no events %v", left)
			}
		}
	}
	next("state", "decision") // the revision, and the pair's first decision (watch's "start")
	sp.run(t, "", nil, "goal", "pause", "g1")
	next("state", "decision")
}

// id runs `loopx ARGS… --json` in the project and returns the id its
// document names (a todo's, a gate's), failing the test without one.
func (sp *servedProject) id(t *testing.T, args ...string) string {
	t.Helper()
	r := sp.run(t, "", nil, append(args, "--json")...)
	var doc struct{ ID string }
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.ID == "" {
		t.Fatalf("loopx %v: no id (exit %d): %v\n%s%s", args, r.code, err, r.stdout, r.stderr)
	}
	return doc.ID
}

// compactJSON is s as compact JSON (the CLI prints it indented).
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var v json.RawMessage
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// opaClientEnv names a directory where the npm OPA client is installed
// (cmd/loopx/testdata/opa's package-lock.json; .ci/run installs it).
const opaClientEnv = "LOOPX_OPA_CLIENT"

// TestServe_OPAClient asks a served project's four decisions with OPA's
// own npm client (@open-policy-agent/opa 2.0.0): each result is the
// decision document, an undefined document is undefined to the client,
// and a wrong token is a 401 it reports.
func TestServe_OPAClient(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	if testing.Short() {
		t.Skip("starts a server")
	}
	node, dir := npmClient(t, opaClientEnv, "@open-policy-agent/opa", "opa")
	script, err := os.ReadFile(filepath.Join("testdata", "opa", "opaclient.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// An ES module resolves its imports from where it lives.
	scriptPath := filepath.Join(dir, "loopx-opaclient-"+strconv.Itoa(os.Getpid())+".mjs")
	if err := os.WriteFile(scriptPath, script, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(scriptPath)

	sp := newServedProject(t)
	sp.startServer(t, "--addr", "127.0.0.1:0")
	c := newHTTPClient(t, sp)
	todo := sp.id(t, "todo", "add", "--goal", "g1", "first task")
	sp.run(t, "", nil, "todo", "add", "--goal", "g1", "second task")
	gate := sp.id(t, "gate", "raise", "--goal", "g1", "--question", "Should the release go out on Friday?", "--blocks-todo", todo)

	cmd := exec.Command(node, scriptPath, c.base, c.token, "g1", "a1", todo, gate)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\n%s%s", err, out.String(), errb.String())
	}
	var got struct {
		Run, Permission, Claim, Gate struct {
			Query, Verdict string
		}
		Undefined  struct{ Undefined bool }
		WrongToken struct{ Status int } `json:"wrong_token"`
	}
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, d := range []struct{ name, query, verdict, gotQ, gotV string }{
		{"run", "should_run", "run", got.Run.Query, got.Run.Verdict},
		{"permission", "permission", "deny", got.Permission.Query, got.Permission.Verdict},
		{"claim", "claim", "deny", got.Claim.Query, got.Claim.Verdict},
		{"gate", "gate_answer", "deny", got.Gate.Query, got.Gate.Verdict},
	} {
		if d.gotQ != d.query || d.gotV != d.verdict {
			t.Errorf("%s through the OPA client: %s %s, want %s %s\n%s", d.name, d.gotQ, d.gotV, d.query, d.verdict, out.String())
		}
	}
	if !got.Undefined.Undefined {
		t.Errorf("an undefined document: %+v, want the client's undefined result\n%s", got.Undefined, out.String())
	}
	if got.WrongToken.Status != 401 {
		t.Errorf("a wrong token: %+v, want 401", got.WrongToken)
	}
}
