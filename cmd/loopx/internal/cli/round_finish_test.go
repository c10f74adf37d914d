package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopx-dev/loopx/kernel"
)

// TestRoundFinish_OpensTheStoreOnce: a charged finish decides claim
// whatever the gates, so the command prepares that query before its
// identity check opens the store, and opens it once (not prepared, the
// finish let the store go, compiled, and replayed the whole file again).
func TestRoundFinish_OpensTheStoreOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "loopx"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := "agents: a1: {host: \"shell\", role: \"executor\"}\ngoals: g1: {\n\tobjective: \"Finish rounds\"\n\tagents: [\"a1\"]\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "loopx", "loopx.cue"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) []byte {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Run(context.Background(), append([]string{"--project", dir}, args...), nil, &out, &errb); code != 0 {
			t.Fatalf("loopx %v: exit %d: %s", args, code, errb.String())
		}
		return out.Bytes()
	}
	run("todo", "add", "--goal", "g1", "Write the guide")
	for _, outcome := range []string{"progress", "no_change"} {
		var started struct {
			Round struct{ ID string } `json:"round"`
		}
		if err := json.Unmarshal(run("round", "start", "--goal", "g1", "--agent", "a1", "--json"), &started); err != nil || started.Round.ID == "" {
			t.Fatalf("round start: %v", err)
		}
		before := kernel.Opens()
		run("round", "finish", started.Round.ID, "--outcome", outcome, "--agent", "a1")
		if n := kernel.Opens() - before; n != 1 {
			t.Fatalf("round finish --outcome %s opened the store %d times", outcome, n)
		}
	}
}
