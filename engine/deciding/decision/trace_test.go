package decision

import (
	"context"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
)

func TestTrace(t *testing.T) {
	buf := topdown.NewBufferTracer()
	_, err := rego.New(rego.Query("data.t.allow"), rego.Module("t.rego", "package t\n\nallow if {\n\tinput.x == 1\n}\n"),
		rego.Input(map[string]any{"x": 1}), rego.QueryTracer(buf)).Eval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rules, full := Trace(*buf)
	if len(rules) == 0 || len(full) <= len(rules) {
		t.Fatalf("rules %d lines, full %d", len(rules), len(full))
	}
	joined := strings.Join(rules, "\n")
	if !strings.Contains(joined, "t.rego:3") || !strings.Contains(joined, "data.t.allow") || strings.Contains(joined, "Redo") {
		t.Fatalf("rule trace:\n%s", joined)
	}
	for _, l := range full {
		if l != strings.TrimRight(l, " ") {
			t.Fatalf("trailing space: %q", l)
		}
	}
}
