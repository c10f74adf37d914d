package engine

import (
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// TestDecisionIDs_ConcurrentAreUniqueAndSafe: decision ids are drawn from
// many goroutines at once (parallel decisions; a server's clients); the
// shared monotonic entropy must not be read unguarded (the bare reader
// panicked with a slice out of range under parallel tests), and no two ids
// may be equal.
func TestDecisionIDs_ConcurrentAreUniqueAndSafe(t *testing.T) {
	const workers, each = 16, 500
	ids := make(chan string, workers*each)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				ids <- ulid.MustNew(ulid.Timestamp(time.Now()), entropy).String()
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("decision id %s drawn twice", id)
		}
		seen[id] = true
	}
}
