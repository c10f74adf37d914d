package cli

import (
	"context"
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
