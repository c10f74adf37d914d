package engine

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
)

// TestReview_RefusalsPastAnOverlongLine: the review reads the decision log
// as every reader does (decisionlog.Scan): a line too long to keep (8 MiB of
// junk) is passed over, and the refusal logged after it is listed.
func TestReview_RefusalsPastAnOverlongLine(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	if err := os.MkdirAll(e.StateDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	junk := append(bytes.Repeat([]byte(`"g1"`), 2<<20+1), '\n')
	if err := os.WriteFile(e.LogPath(), junk, 0o644); err != nil {
		t.Fatal(err)
	}
	d, _ := e.Permission(context.Background(), "g1", "a1", toolcall.Call{Tool: "Write", Paths: []string{".loopx/state.db"}})
	if d.Verdict != "deny" {
		t.Fatalf("verdict %s", d.Verdict)
	}
	rv, err := e.Review(reportdata.ReviewOptions{Goal: "g1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rv.Refusals) != 1 || rv.Refusals[0].LastID != d.DecisionID {
		t.Fatalf("refusals %+v, want the deny %s", rv.Refusals, d.DecisionID)
	}
}
