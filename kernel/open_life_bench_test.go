package kernel

import (
	"os"
	"testing"
)

// BenchmarkOpen_Dir opens the store in $LOOPX_BENCH_STORE (a project's
// .loopx/, e.g. of the long-life project kept by LOOPX_BENCH_KEEP=1 go run
// ./cmd/loopx-bench life, with LOOPX_TEST_XDG set to its kept state/
// directory) and closes it: what each process of a write pays to open it.
func BenchmarkOpen_Dir(b *testing.B) {
	dir := os.Getenv("LOOPX_BENCH_STORE")
	if dir == "" {
		b.Skip("set LOOPX_BENCH_STORE")
	}
	for i := 0; i < b.N; i++ {
		s, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
