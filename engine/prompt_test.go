package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/kernel/records"
)

func TestPrompt_BoundedByDefaultFullOnRequest(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, claimSpec)
	addTodos(t, e, strings.Repeat("a very long todo title ", 20))
	for i := 0; i < 20; i++ {
		if _, err := e.RaiseGate(gates.Input{Goal: "g1", Question: fmt.Sprintf("Is question number %d about the rollout answered by the owners yet?", i), BlocksAgent: "a2", By: "human"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 30; i++ {
		if _, err := e.AddEvidence(records.Evidence{Goal: "g1", Kind: "test", Status: "pass", Summary: fmt.Sprintf("run %d: %s", i, strings.Repeat("ok ", 40))}); err != nil {
			t.Fatal(err)
		}
	}
	c.Advance(73 * time.Hour) // all of the above is stale now
	if _, err := e.AddEvidence(records.Evidence{Goal: "g1", Kind: "pr", Summary: "fresh: PR 7 opened"}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := e.Prompt(ctx, reportdata.PromptOptions{Goal: "g1", Agent: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Verdict != "run" || p.Chars > render.DefaultPromptChars || !p.Truncated || !strings.Contains(p.Text, "## Report back") {
		t.Fatalf("verdict %s, %d chars, truncated %v:\n%s", p.Verdict, p.Chars, p.Truncated, p.Text)
	}
	if strings.Contains(p.Text, "run 29:") || !strings.Contains(p.Text, "fresh: PR 7 opened") && strings.Contains(p.Text, "## Fresh evidence") {
		t.Fatalf("stale evidence in the prompt:\n%s", p.Text)
	}
	full, err := e.Prompt(ctx, reportdata.PromptOptions{Goal: "g1", Agent: "a1", Full: true})
	if err != nil {
		t.Fatal(err)
	}
	if full.Truncated || !strings.Contains(full.Text, "question number 19") || !strings.Contains(full.Text, "fresh: PR 7 opened") {
		t.Fatalf("full prompt misses items:\n%s", full.Text)
	}
}
