package engine

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loopx-dev/loopx/kernel"
)

// keepLease renews the lease of round r's todo every third of its TTL
// while `loopx run` waits for the agent command, so that a live agent
// keeps its todo and a killed one loses it when the lease expires (design
// §9). It must be called with the store released (t is the round's
// todo as started, for its TTL); the returned stop
// function ends the renewals (the engine is then free again) and reports
// the goal revision the renewals left (rev, starting from revBefore) and
// whether anything else changed the goal meanwhile (a renewal is not
// progress).
func (e *Engine) keepLease(r *kernel.Round, t *kernel.Todo, revBefore uint64) (stop func() (rev uint64, others bool)) {
	ttl := DefaultLeaseTTL
	if t != nil && t.Lease != nil && t.Lease.TTLSeconds > 0 {
		ttl = time.Duration(t.Lease.TTLSeconds) * time.Second
	}
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
				before, after, ok := e.renewRoundLease(r)
				_ = e.Release()
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

// renewRoundLease renews the lease round r holds on its todo, if it still
// holds it: version +1, expires_at = now + TTL. It returns the goal's
// revision before and after the renewal and whether it renewed.
func (e *Engine) renewRoundLease(r *kernel.Round) (before, after uint64, ok bool) {
	err := e.update(func(tx *kernel.Tx) error {
		t, err := tx.Todo(r.Todo)
		if err != nil {
			return err
		}
		l := t.Lease
		if l == nil || l.Released || l.Holder != r.Agent || l.Round != r.ID || !l.LiveAt(tx.Now()) {
			return nil
		}
		g, err := tx.Goal(r.Goal)
		if err != nil {
			return err
		}
		before = g.Rev
		ttl := time.Duration(l.TTLSeconds) * time.Second
		if ttl <= 0 {
			ttl = DefaultLeaseTTL
		}
		nl := *l
		nl.Version++
		nl.ExpiresAt, nl.TTLSeconds = tx.Now().Add(ttl), int64(ttl/time.Second)
		t.Lease = &nl
		data := leaseData(&nl)
		data["round"] = r.ID
		if err := e.putLease(tx, t, "todo.lease_renewed", r.Agent, data); err != nil {
			return err
		}
		after, ok = tx.Revision(), true
		return nil
	})
	if err != nil {
		return 0, 0, false
	}
	return before, after, ok
}

// writeRoundPrompt writes the bounded-turn prompt of a started round to
// .loopx/rounds/<round>.md and returns its path.
func (e *Engine) writeRoundPrompt(st StartResult) (string, error) {
	dir := filepath.Join(e.StateDir(), "rounds")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p, err := e.buildPrompt(promptInput{goal: st.Round.Goal, agent: st.Round.Agent, decision: st.Decision, todo: st.Todo, round: st.Round})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, st.Round.ID+".md")
	if err := os.WriteFile(path, []byte(p.Text), 0o644); err != nil {
		return "", err
	}
	prunePrompts(dir, keepPrompts)
	return path, nil
}

// keepPrompts is how many round prompt files .loopx/rounds keeps.
const keepPrompts = 200

// prunePrompts removes all but the newest keep prompt files of dir, so that
// days of unattended rounds do not fill the state directory.
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
	for _, f := range files[min(keep, len(files)):] {
		_ = os.Remove(filepath.Join(dir, f.name))
	}
}
