package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/plugins"
	"github.com/open-policy-agent/opa/v1/server"
	"github.com/open-policy-agent/opa/v1/server/types"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// opaServer is OPA's own server (its server package) with a policy that
// defines data.loopx.run.decision, so that the same requests can be put
// to it and to loopx's API.
func opaServer(t *testing.T) *server.Server {
	t.Helper()
	ctx := t.Context()
	store := inmem.New()
	m, err := plugins.New([]byte{}, "loopx-shape", store)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Stop(ctx) })
	s, err := server.New().WithAddresses([]string{"127.0.0.1:0"}).WithStore(store).WithManager(m).Init(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const policy = "package loopx.run\n\ndecision := {\"decision_id\": \"01D\", \"verdict\": \"allow\"} if input.agent\n"
	w := httptest.NewRecorder()
	s.Handler.ServeHTTP(w, httptest.NewRequest("PUT", "/v1/policies/run", strings.NewReader(policy)))
	if w.Code != 200 {
		t.Fatalf("loading the policy into OPA: %d %s", w.Code, w.Body)
	}
	return s
}

// keys is the sorted top-level keys of a JSON object.
func keys(t *testing.T, b []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON object: %q", b)
	}
	var k []string
	for key := range m {
		if key != "decision_id" && key != "message" && key != "errors" {
			k = append(k, key)
		}
	}
	sort.Strings(k)
	return k
}

// TestOPAShapes puts the same requests to OPA's server and to loopx's API
// and compares the answers' status and shape: a defined decision
// ({"result": …}, which OPA's own DataResponseV1 type decodes), a GET with
// ?input=, an undefined document (200 {}), and a malformed body (400,
// OPA's error code). The decision itself is loopx's; the envelope is
// OPA's.
func TestOPAShapes(t *testing.T) {
	opa := opaServer(t)
	ours, _ := newTestAPI(t)
	for _, c := range []struct{ name, method, path, body string }{
		{"a defined decision", "POST", "/v1/data/loopx/run/decision", `{"input":{"goal":"g1","agent":"a1"}}`},
		{"GET with input", "GET", "/v1/data/loopx/run/decision?input=%7B%22goal%22%3A%22g1%22%2C%22agent%22%3A%22a1%22%7D", ""},
		{"an undefined document", "POST", "/v1/data/loopx/nothing/here", `{"input":{"goal":"g1"}}`},
		{"a malformed body", "POST", "/v1/data/loopx/run/decision", `{"input":`},
	} {
		t.Run(c.name, func(t *testing.T) {
			wo := httptest.NewRecorder()
			opa.Handler.ServeHTTP(wo, httptest.NewRequest(c.method, c.path, strings.NewReader(c.body)))
			wl := do(ours, c.method, c.path, "127.0.0.1", "Bearer tok", c.body)
			if wo.Code != wl.Code {
				t.Fatalf("status: OPA %d (%s), loopx %d (%s)", wo.Code, wo.Body, wl.Code, wl.Body)
			}
			ko, kl := keys(t, wo.Body.Bytes()), keys(t, wl.Body.Bytes())
			if strings.Join(ko, ",") != strings.Join(kl, ",") {
				t.Fatalf("keys: OPA %v (%s), loopx %v (%s)", ko, wo.Body, kl, wl.Body)
			}
			if wo.Code == 200 {
				var ro, rl types.DataResponseV1
				if err := json.Unmarshal(wl.Body.Bytes(), &rl); err != nil {
					t.Fatalf("OPA's DataResponseV1 cannot read loopx's answer: %v", err)
				}
				_ = json.Unmarshal(wo.Body.Bytes(), &ro)
				if (ro.Result == nil) != (rl.Result == nil) {
					t.Fatalf("result defined: OPA %v, loopx %v", ro.Result != nil, rl.Result != nil)
				}
				return
			}
			var eo, el types.ErrorV1
			if err := json.Unmarshal(wl.Body.Bytes(), &el); err != nil {
				t.Fatalf("OPA's ErrorV1 cannot read loopx's error: %v", err)
			}
			_ = json.Unmarshal(wo.Body.Bytes(), &eo)
			if eo.Code != el.Code {
				t.Fatalf("error code: OPA %q, loopx %q", eo.Code, el.Code)
			}
		})
	}
}
