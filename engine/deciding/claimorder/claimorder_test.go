package claimorder

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// BenchmarkClaim measures the claim order of one goal as every write
// computes it for the read model (readmodel.Build), at 200, 2,000 and
// 10,000 open todos.
func BenchmarkClaim(b *testing.B) {
	for _, n := range []int{200, 2000, 10000} {
		todos := make([]records.Todo, n)
		t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		for i := range todos {
			todos[i] = records.Todo{ID: fmt.Sprintf("t-%05d", i), Goal: "g1", Title: fmt.Sprintf("todo %d", i),
				Kind: records.KindTask, Status: records.TodoOpen, Priority: i % 5, CreatedAt: t0}
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

// BenchmarkRefresh measures a write's read model refresh (readmodel.Take
// and WriteAfter) at 200, 2,000 and 10,000 open todos: with the claim
// order evaluated (the file it replaces keeps none for this input) and
// with it kept (a write that left the rule's input alone).
func BenchmarkRefresh(b *testing.B) {
	for _, n := range []int{200, 2000, 10000} {
		s, err := kernel.Open(b.TempDir(), kernel.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Update(func(tx *kernel.Tx) error {
			for i := range n {
				if _, err := tx.AddTodo(records.Todo{Goal: "g1", Title: fmt.Sprintf("todo %d", i), Priority: i % 5}); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(b.TempDir(), "readmodel.json")
		for _, kept := range []bool{false, true} {
			b.Run(fmt.Sprintf("%d/kept=%v", n, kept), func(b *testing.B) {
				for b.Loop() {
					if !kept {
						_ = os.Remove(path)
					}
					readmodel.Take(s, path, []string{"g1"}, readmodel.Stamp{}, Order()).WriteAfter(s.Path(), readmodel.Stamp{})
				}
			})
		}
		s.Close()
	}
}
