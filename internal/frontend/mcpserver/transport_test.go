package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/internal/testproject"
)

const testSpec = `project: name: "c01"
agents: a1: {host: "shell"}
goals: g1: {
	objective: "Ship the v2 API"
	agents: ["a1"]
	quota: {window: "24h", rounds: 3, min_interval: "5m"}
}
`

// newProject makes a project with testSpec (internal/testproject) and
// returns its root; its anchor directory is under the package's
// XDG_STATE_HOME (TestMain).
func newProject(t *testing.T) string {
	t.Helper()
	return testproject.New(t, testSpec).Root
}

// eofReader closes eof when the wrapped reader reports io.EOF.
type eofReader struct {
	r   io.Reader
	eof chan struct{}
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if errors.Is(err, io.EOF) {
		select {
		case <-e.eof:
		default:
			close(e.eof)
		}
	}
	return n, err
}

// wire is a raw stdio session with Serve: lines in, lines out.
type wire struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	eof  chan struct{}
	done chan error
}

func newWire(t *testing.T, o Options) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, out: bufio.NewScanner(outR), eof: make(chan struct{}), done: make(chan error, 1)}
	w.out.Buffer(nil, 4<<20)
	go func() {
		err := Serve(context.Background(), o, &eofReader{r: inR, eof: w.eof}, outW)
		outW.Close()
		w.done <- err
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatalf("send %s: %v", line, err)
	}
}

// recv reads the next line the server wrote and decodes it.
func (w *wire) recv() any {
	w.t.Helper()
	if !w.out.Scan() {
		w.t.Fatalf("the server wrote nothing more (err %v)", w.out.Err())
	}
	var v any
	if err := json.Unmarshal(w.out.Bytes(), &v); err != nil {
		w.t.Fatalf("the server wrote a line that is not JSON: %v\n%s", err, w.out.Bytes())
	}
	return v
}

// initialize runs the handshake at protocol version proto.
func (w *wire) initialize(proto string) {
	w.t.Helper()
	w.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + proto + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	r := w.recv().(map[string]any)
	if got := r["result"].(map[string]any)["protocolVersion"]; got != proto {
		w.t.Fatalf("initialize: protocol %v, want %s: %v", got, proto, r)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// wantError checks that v is one error response with code and id (nil: null).
func wantError(t *testing.T, v any, code int, id any, msgPart string) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok || m["jsonrpc"] != "2.0" {
		t.Fatalf("want one JSON-RPC 2.0 response object, got %v", v)
	}
	gotID, hasID := m["id"]
	if !hasID || gotID != id {
		t.Fatalf("id %v (present %v), want %v: %v", gotID, hasID, id, m)
	}
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != float64(code) || !strings.Contains(e["message"].(string), msgPart) {
		t.Fatalf("error %v, want code %d with %q", m["error"], code, msgPart)
	}
	if _, ok := m["result"]; ok {
		t.Fatalf("an error response with a result: %v", m)
	}
}

// wantPong checks that v is the (empty) result of ping id.
func wantPong(t *testing.T, v any, id any) {
	t.Helper()
	m, _ := v.(map[string]any)
	if m == nil || m["id"] != id || m["result"] == nil || m["error"] != nil {
		t.Fatalf("want the answer to ping %v, got %v", id, v)
	}
}

// TestTransport_MalformedLineThenValidRequest (modelcontextprotocol/go-sdk#1209): a client
// sends one malformed JSON line, then a valid request. The bad line gets a
// -32700 parse error with id null, the valid request is answered, and the
// server keeps serving (a tool call after both works).
func TestTransport_MalformedLineThenValidRequest(t *testing.T) {
	t.Parallel()
	w := newWire(t, Options{Engine: engine.Options{Root: newProject(t)}, Agent: "a1"})
	w.initialize("2025-06-18")
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"`) // truncated
	wantError(t, w.recv(), -32700, nil, "not valid JSON")
	w.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	wantPong(t, w.recv(), 2.0)
	w.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"should_run","arguments":{"goal":"g1","agent":"a1"}}}`)
	r := w.recv().(map[string]any)
	if r["id"] != 3.0 || r["result"].(map[string]any)["structuredContent"].(map[string]any)["verdict"] == nil {
		t.Fatalf("tools/call after the bad line: %v", r)
	}
	w.in.Close()
	if err := <-w.done; err != nil {
		t.Fatalf("Serve after EOF: %v", err)
	}
}

// TestMCPFraming sends each frame on its own line after the handshake and
// checks the answer JSON-RPC 2.0 gives it, then that the server still
// answers a ping. A nil code means no answer at all (a notification): the
// ping's answer must be the next line.
func TestMCPFraming(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		frame string
		code  int
		id    any
		msg   string
	}{
		{"not JSON", `{bad json`, -32700, nil, "not valid JSON"},
		{"truncated", `{"jsonrpc":"2.0","id":7,"method":"ping"`, -32700, nil, "not valid JSON"},
		{"invalid UTF-8 is still JSON text", `{"jsonrpc":"2.0","id":7,"method":"p` + "\xff" + `ing"}`, -32601, 7.0, "not found"},
		{"a number", `5`, -32600, nil, "JSON object"},
		{"null", `null`, -32600, nil, "JSON object"},
		{"a string", `"ping"`, -32600, nil, "JSON object"},
		{"no jsonrpc", `{"id":7,"method":"ping"}`, -32600, 7.0, `"jsonrpc" must be "2.0"`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, 7.0, `"jsonrpc" must be "2.0"`},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":"x","method":"ping"}`, -32600, "x", `"jsonrpc" must be "2.0"`},
		{"no jsonrpc and no id", `{"method":"notifications/initialized"}`, -32600, nil, `"jsonrpc" must be "2.0"`},
		{"method a number", `{"jsonrpc":"2.0","id":7,"method":5}`, -32600, 7.0, `"method" must be a string`},
		{"method a number, no id", `{"jsonrpc":"2.0","method":1,"params":"bar"}`, -32600, nil, `"method" must be a string`},
		{"no method with an id", `{"jsonrpc":"2.0","id":7}`, -32600, 7.0, `no "method"`},
		{"no method with params", `{"jsonrpc":"2.0","id":7,"params":{}}`, -32600, 7.0, `no "method"`},
		{"no method and no id", `{"jsonrpc":"2.0"}`, -32600, nil, "no method and no id"},
		{"an empty object", `{}`, -32600, nil, `"jsonrpc" must be "2.0"`},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, nil, "not null"},
		{"id an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, nil, "string or an integer"},
		{"id a fraction", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, nil, "not an integer"},
		{"params a string", `{"jsonrpc":"2.0","id":7,"method":"ping","params":"x"}`, -32600, 7.0, `"params" must be`},
		{"result and error", `{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"x"}}`, -32600, 7.0, "both"},
		{"empty method", `{"jsonrpc":"2.0","id":7,"method":""}`, -32601, 7.0, "not found"},
		{"unknown method", `{"jsonrpc":"2.0","id":"u","method":"nope/nope"}`, -32601, "u", "not found"},
		{"empty batch", `[]`, -32600, nil, "empty batch"},
		{"batch on 2025-06-18", `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, -32600, 8.0, "batches are not allowed in protocol 2025-06-18"},
		{"batch of notifications on 2025-06-18", `[{"jsonrpc":"2.0","method":"notifications/x"}]`, -32600, nil, "batches are not allowed"},
		{"a notification (no answer)", `{"jsonrpc":"2.0","method":"notifications/unknown"}`, 0, nil, ""},
		{"a response to nothing (no answer)", `{"jsonrpc":"2.0","id":99,"result":{}}`, 0, nil, ""},
		{"a blank line (no answer)", `   `, 0, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWire(t, Options{Engine: engine.Options{Root: newProject(t)}, Agent: "a1"})
			w.initialize("2025-06-18")
			w.send(tc.frame)
			if tc.code != 0 {
				wantError(t, w.recv(), tc.code, tc.id, tc.msg)
			}
			w.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			wantPong(t, w.recv(), "after")
		})
	}
}

// TestMCPFraming_LineLimit: a line of exactly the limit is served; one
// byte more is answered with -32600 naming both sizes, and the next line
// is served.
func TestMCPFraming_LineLimit(t *testing.T) {
	t.Parallel()
	w := newWire(t, Options{Engine: engine.Options{Root: newProject(t)}, MaxLineBytes: 300, Agent: "a1"})
	w.initialize("2025-06-18")
	ping := func(id string, size int) string {
		head := `{"jsonrpc":"2.0","id":"` + id + `","method":"ping","params":{"pad":"`
		return head + strings.Repeat("x", size-len(head)-3) + `"}}`
	}
	w.send(ping("fits", 300))
	wantPong(t, w.recv(), "fits")
	w.send(ping("over", 301))
	wantError(t, w.recv(), -32600, nil, "the line is 301 bytes; the limit is 300 bytes")
	w.send(ping("huge", 100_000))
	wantError(t, w.recv(), -32600, nil, "the line is 100000 bytes")
	w.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	wantPong(t, w.recv(), 2.0)
}

// TestMCPFraming_Batch2025_03_26: on protocol 2025-03-26 (which has
// batches) a batch is answered with one array: a response for each call
// and each invalid member, none for a notification; a batch of only
// notifications gets no answer.
func TestMCPFraming_Batch2025_03_26(t *testing.T) {
	t.Parallel()
	w := newWire(t, Options{Engine: engine.Options{Root: newProject(t)}, Agent: "a1"})
	w.initialize("2025-03-26")
	w.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"should_run","arguments":{"goal":"g1","agent":"a1"}}},` +
		`{"jsonrpc":"1.0","id":3,"method":"ping"},7,{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	arr, ok := w.recv().([]any)
	if !ok || len(arr) != 5 {
		t.Fatalf("want one array of 5 responses, got %v", arr)
	}
	wantPong(t, arr[0], 1.0)
	if r := arr[1].(map[string]any); r["id"] != 2.0 || r["result"] == nil {
		t.Fatalf("batch member 2: %v", r)
	}
	wantError(t, arr[2], -32600, 3.0, `"jsonrpc" must be "2.0"`)
	wantError(t, arr[3], -32600, nil, "batch member is a JSON object")
	wantError(t, arr[4], -32600, 1.0, "already used")
	w.send(`[{"jsonrpc":"2.0","method":"notifications/x"}]`)
	w.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	wantPong(t, w.recv(), "after")
}

// TestMCPFraming_BatchBeforeInitialize: a batch before the handshake is
// refused (initialize must not be batched; no revision is agreed yet).
func TestMCPFraming_BatchBeforeInitialize(t *testing.T) {
	t.Parallel()
	w := newWire(t, Options{Engine: engine.Options{Root: newProject(t)}, Agent: "a1"})
	w.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	wantError(t, w.recv(), -32600, 1.0, "before initialize")
	wantError(t, w.recv(), -32600, 2.0, "before initialize")
	w.initialize("2025-03-26")
}

// holdLock opens the project's store (holding its lock) until release.
func holdLock(t *testing.T, root string) (release func()) {
	t.Helper()
	e := engine.New(engine.Options{Root: root})
	if _, err := e.Store(); err != nil {
		t.Fatal(err)
	}
	return func() { e.Close() }
}

// TestMCPEOF_AnswersCallsInFlight: a call still running when stdin closes
// (here: waiting for the state lock a test holds) is finished and answered
// before Serve returns nil; its change is applied exactly once.
func TestMCPEOF_AnswersCallsInFlight(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	w := newWire(t, Options{Engine: engine.Options{Root: root, LockTimeout: 2 * time.Minute}, Tools: []string{"all"}, Agent: "a1"})
	w.initialize("2025-06-18")
	release := holdLock(t, root)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"todo_add","arguments":{"goal":"g1","title":"Write the guide"}}}`)
	// The same id again while the call runs: refused, the call unharmed.
	w.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	wantError(t, w.recv(), -32600, 1.0, "already used by a call in progress")
	w.in.Close()
	<-w.eof
	release()
	r := w.recv().(map[string]any)
	if r["id"] != 1.0 || r["result"].(map[string]any)["structuredContent"].(map[string]any)["title"] != "Write the guide" {
		t.Fatalf("the call in flight at EOF: %v", r)
	}
	if err := <-w.done; err != nil {
		t.Fatalf("Serve after EOF: %v", err)
	}
	e := engine.New(engine.Options{Root: root})
	defer e.Close()
	st, err := e.Status("g1")
	if err != nil {
		t.Fatal(err)
	}
	if n := st.Goals[0].Todos["open"]; n != 1 {
		t.Fatalf("%d open todos after the call, want 1", n)
	}
}

// TestMCPFraming_RequestBeforeInitialize: a call before the handshake is
// an invalid request (-32600) saying initialize comes first, not an error
// with code 0; a ping is answered, and after initialize the same call is.
func TestMCPFraming_RequestBeforeInitialize(t *testing.T) {
	t.Parallel()
	w := newWire(t, Options{Engine: engine.Options{Root: newProject(t)}, Agent: "a1"})
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	wantError(t, w.recv(), -32600, 1.0, "initialize")
	w.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	wantPong(t, w.recv(), 2.0)
	w.initialize("2025-06-18")
	w.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if r := w.recv().(map[string]any); r["id"] != 3.0 || r["result"] == nil {
		t.Fatalf("tools/list after initialize: %v", r)
	}
}
