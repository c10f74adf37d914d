package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzFrame feeds one line to the transport's frame check, before and
// after a 2025-03-26 handshake (batches allowed). It must never panic;
// everything it writes is a JSON-RPC 2.0 error response (or an array of
// responses) with an id that is a string, an integer or null; a single
// object is either handed on or answered, never both nor neither.
func FuzzFrame(f *testing.F) {
	for _, s := range []string{
		`{bad json`, `5`, `null`, `[]`, `[1]`, `{}`, `{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":1,"method":5}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":3,"result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},7]`,
		`{"jsonrpc":"2.0","id":"a","method":"ping","params":"x"}`, `{"jsonrpc":"2.0","id":1,"result":1,"error":{}}`,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, line string, batches bool) {
		if strings.ContainsAny(line, "\n") {
			return // the reader splits lines
		}
		var out bytes.Buffer
		c := &conn{out: &out, closed: make(chan struct{}), inflight: map[jsonrpc.ID]*batch{}}
		if batches {
			c.protocol = lastBatchProtocol
		}
		trimmed := bytes.TrimSpace([]byte(line))
		if len(trimmed) == 0 {
			return
		}
		m := c.accept(trimmed)
		if m != nil {
			if _, err := jsonrpc.EncodeMessage(m); err != nil {
				t.Fatalf("handed on a message that does not encode: %v", err)
			}
		}
		lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		if out.Len() == 0 {
			lines = nil
		}
		if trimmed[0] == '{' && json.Valid(trimmed) && (m == nil) == (len(lines) == 0) {
			t.Fatalf("an object was handed on (%v) and answered %d times", m != nil, len(lines))
		}
		for _, l := range lines {
			var v any
			if err := json.Unmarshal(l, &v); err != nil {
				t.Fatalf("wrote a line that is not JSON: %q", l)
			}
			rs, isArr := v.([]any)
			if !isArr {
				rs = []any{v}
			}
			for _, r := range rs {
				checkErrorResponse(t, r)
			}
		}
	})
}

// checkErrorResponse checks v is a JSON-RPC 2.0 error response of the
// transport's own (-32700 or -32600).
func checkErrorResponse(t *testing.T, v any) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok || m["jsonrpc"] != "2.0" {
		t.Fatalf("not a JSON-RPC 2.0 response: %v", v)
	}
	id, has := m["id"]
	switch id.(type) {
	case nil, string, float64:
	default:
		t.Fatalf("bad id %v", id)
	}
	e, _ := m["error"].(map[string]any)
	if !has || e == nil || (e["code"] != -32700.0 && e["code"] != -32600.0) || m["result"] != nil {
		t.Fatalf("not an error response of the transport: %v", v)
	}
}
