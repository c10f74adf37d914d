package claimorder

import (
	"fmt"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel"
)

// BenchmarkClaim measures the claim order of one goal as every write
// computes it for the read model (readmodel.Build), at 200, 2,000 and
// 10,000 open todos.
func BenchmarkClaim(b *testing.B) {
	for _, n := range []int{200, 2000, 10000} {
		todos := make([]kernel.Todo, n)
		t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		for i := range todos {
			todos[i] = kernel.Todo{ID: fmt.Sprintf("t-%05d", i), Goal: "g1", Title: fmt.Sprintf("todo %d", i),
				Kind: kernel.KindTask, Status: kernel.TodoOpen, Priority: i % 5, CreatedAt: t0}
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if order, _, err := Claim(todos); err != nil || len(order) != n {
					b.Fatal(err, len(order))
				}
			}
		})
	}
}
