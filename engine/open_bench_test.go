package engine

import (
	"path/filepath"
	"testing"

	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/kernel"
)

// BenchmarkStoreOpen measures opening the kernel store of a project with
// 200 todos and 5,000 evidence records (the decide budget's project).
func BenchmarkStoreOpen(b *testing.B) {
	root := benchProject(b, 200, 5000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := kernel.Open(filepath.Join(root, scaffold.StateDirName), kernel.Options{})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
