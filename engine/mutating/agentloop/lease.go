package agentloop

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/kernel/records"
)

// leaseTTL is the TTL of t's lease, def when t or its lease names none.
func leaseTTL(t *records.Todo, def time.Duration) time.Duration {
	if t != nil && t.Lease != nil && t.Lease.TTLSeconds > 0 {
		return time.Duration(t.Lease.TTLSeconds) * time.Second
	}
	return def
}

// keepLease renews the lease of round r's todo every third of its TTL
// while `loopx run` waits for the agent command, so that a live agent
// keeps its todo and a killed one loses it when the lease expires
// (a lease's expiry is absolute). It must be called with the store released; the returned stop
// function ends the renewals (the engine is then free again) and reports
// the goal revision the renewals left (rev, starting from revBefore) and
// whether anything else changed the goal meanwhile (a renewal is not
// progress).
func keepLease(eng Engine, r *records.Round, ttl time.Duration, revBefore uint64) (stop func() (rev uint64, others bool)) {
	every := max(ttl/3, time.Second)
	var (
		mu     sync.Mutex
		rev    = revBefore
		others bool
	)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				before, after, ok := eng.RenewLease(r)
				_ = eng.Release()
				mu.Lock()
				if ok {
					if before != rev {
						others = true
					}
					rev = after
				}
				mu.Unlock()
			}
		}
	}()
	return func() (uint64, bool) {
		close(quit)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return rev, others
	}
}

// writePrompt writes the prompt of the round Start opened last to
// dir/<round>.md and returns its path.
// dir is the state directory's rounds/: it and the file are reached from
// the project root without following a link (internal/nofollow).
func writePrompt(eng Engine, dir, round string) (string, error) {
	base, rel := nofollow.Split(dir, 2)
	if err := nofollow.MkdirAll(base, rel, 0o755); err != nil {
		return "", err
	}
	text, err := eng.Prompt()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, round+".md")
	if err := nofollow.WriteFile(base, filepath.Join(rel, round+".md"), []byte(text), 0o644); err != nil {
		return "", err
	}
	prunePrompts(dir, keepPrompts)
	return path, nil
}

// keepPrompts is how many round prompt files .loopx/rounds keeps.
const keepPrompts = 200

// prunePrompts removes all but the newest keep prompt files (*.md, by
// modification time) of dir, so that days of unattended rounds do not fill
// the state directory. It reports nothing: a file it cannot remove stays.
func prunePrompts(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= keep {
		return
	}
	type file struct {
		name string
		mod  int64
	}
	var files []file
	for _, d := range entries {
		if fi, err := d.Info(); err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			files = append(files, file{d.Name(), fi.ModTime().UnixNano()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod > files[j].mod })
	base, rel := nofollow.Split(dir, 2) // <project>/.loopx/rounds, no link followed
	for _, f := range files[min(keep, len(files)):] {
		_ = nofollow.RemoveAll(base, filepath.Join(rel, f.name))
	}
}
