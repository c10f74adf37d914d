package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"
)

// BenchmarkCLIDecide runs `loopx decide should-run` in-process on the
// project in $LOOPX_BENCH_PROJECT (e.g. p1, 2,000 todos, of those kept by
// LOOPX_BENCH_KEEP=1 go run ./cmd/loopx-bench, with XDG_STATE_HOME set to
// the kept state/ directory): the whole command but the process start.
func BenchmarkCLIDecide(b *testing.B) {
	dir := os.Getenv("LOOPX_BENCH_PROJECT")
	if dir == "" {
		b.Skip("set LOOPX_BENCH_PROJECT")
	}
	args := []string{"--project", dir, "decide", "should-run", "--goal", "g1", "--agent", "a1"}
	for i := 0; i < b.N; i++ {
		Run(context.Background(), args, nil, io.Discard, io.Discard)
	}
}

// BenchmarkCLIStatus runs `loopx status` in-process on the project in
// $LOOPX_BENCH_PROJECT (as BenchmarkCLIDecide).
func BenchmarkCLIStatus(b *testing.B) {
	dir := os.Getenv("LOOPX_BENCH_PROJECT")
	if dir == "" {
		b.Skip("set LOOPX_BENCH_PROJECT")
	}
	args := []string{"--project", dir, "status"}
	for i := 0; i < b.N; i++ {
		var errb bytes.Buffer
		if code := Run(context.Background(), args, nil, io.Discard, &errb); code != 0 {
			b.Fatalf("status: exit %d: %s", code, errb.String())
		}
	}
}

// BenchmarkCLIRoundPair runs `loopx round start` and `round finish` (as
// agent a1 on goal g1, outcome progress) in-process on the project in
// $LOOPX_BENCH_PROJECT (as BenchmarkCLIDecide): what loopx-bench's round
// start+finish pair does, but the two process starts.
func BenchmarkCLIRoundPair(b *testing.B) {
	dir := os.Getenv("LOOPX_BENCH_PROJECT")
	if dir == "" {
		b.Skip("set LOOPX_BENCH_PROJECT")
	}
	for i := 0; i < b.N; i++ {
		var out, errb bytes.Buffer
		if code := Run(context.Background(), []string{"--project", dir, "round", "start", "--goal", "g1", "--agent", "a1", "--json"}, nil, &out, &errb); code != 0 {
			b.Fatalf("round start: exit %d: %s", code, errb.String())
		}
		var started struct {
			Round struct{ ID string } `json:"round"`
		}
		if err := json.Unmarshal(out.Bytes(), &started); err != nil {
			b.Fatal(err)
		}
		if code := Run(context.Background(), []string{"--project", dir, "round", "finish", started.Round.ID, "--outcome", "progress", "--agent", "a1"}, nil, io.Discard, &errb); code != 0 {
			b.Fatalf("round finish: exit %d: %s", code, errb.String())
		}
	}
}
