package main

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// concurrency times the write path under contention, as processes, and
// prints it below the table (v is `loopx version`'s median of this run):
//
//   - rounds: four agents (a1…a4 on one goal) each doing n round
//     start+finish pairs at once, against one agent (a1) doing 4n pairs
//     in a row, as the ratio of the two wall times (the budget: ≤ 0.8);
//     each side is run twice, alternating, and the times summed;
//   - claims/s: 8·max(n, 5) `todo claim` processes of distinct todos, by
//     one process at a time and by 8 at once (agents a1…a8), as claims per
//     second of wall time.
//
// Each project (agentsSpec, 200 todos) is built in process and warmed
// (two pairs, two claims) first.
func concurrency(bin, tmp string, n int, v time.Duration) error {
	rounds := &fixture{name: "rounds", todos: 200, spec: agentsSpec, root: filepath.Join(tmp, "rounds")}
	claims := &fixture{name: "claims", todos: 200, spec: agentsSpec, root: filepath.Join(tmp, "claims")}
	for _, f := range []*fixture{rounds, claims} {
		if err := makeProject(f); err != nil {
			return fmt.Errorf("project %s: %w", f.name, err)
		}
	}
	for range 2 {
		if _, _, err := runPair(bin, rounds, "a1"); err != nil {
			return err
		}
	}
	todos := claims.ids
	for _, id := range todos[:2] {
		if _, _, err := timeRun(bin, claims.root, []string{"todo", "claim", id, "--agent", "a1"}, ""); err != nil {
			return err
		}
	}
	todos = todos[2:]

	// Rounds: one agent 4n in a row, then four agents n each at once, twice.
	var one, four time.Duration
	no := 0
	for range 2 {
		t := time.Now()
		for range 4 * n {
			_, said, err := runPair(bin, rounds, "a1")
			if err != nil {
				return err
			}
			if said {
				no++
			}
		}
		one += time.Since(t)
		d, k, err := atOnce(4, n, func(w int) (bool, error) {
			_, said, err := runPair(bin, rounds, fmt.Sprintf("a%d", w+1))
			return said, err
		})
		if err != nil {
			return err
		}
		four, no = four+d, no+k
	}
	fmt.Printf("rounds: 4 agents × %d round start+finish at once / 1 agent × %d in a row: %.2f× (%.0f ms / %.0f ms, summed over 2 runs each; one pair in a row = %.2f× `loopx version`)\n",
		n, 4*n, float64(four)/float64(one), ms(four), ms(one), float64(one)/float64(8*n)/float64(v))
	if no > 0 {
		fmt.Printf("  %d round starts were answered no (no round opened); their time is counted\n", no)
	}

	// Claims: m distinct todos by 1 process at a time, then m others by 8.
	m := 8 * max(n, 5)
	if len(todos) < 2*m {
		return fmt.Errorf("claims: %d todos for %d claims", len(todos), 2*m)
	}
	for i, procs := range []int{1, 8} {
		batch := todos[i*m : (i+1)*m]
		var next atomic.Int64
		d, k, err := atOnce(procs, m/procs, func(w int) (bool, error) {
			id := batch[next.Add(1)-1]
			_, said, err := timeRun(bin, claims.root, []string{"todo", "claim", id, "--agent", fmt.Sprintf("a%d", w+1)}, "")
			return said, err
		})
		if err != nil {
			return err
		}
		fmt.Printf("claims/s with %d process%s: %.1f (%d todo claim processes in %.0f ms", procs, map[bool]string{true: "", false: "es"}[procs == 1], float64(m)/d.Seconds(), m, ms(d))
		if k > 0 {
			fmt.Printf("; %d answered no", k)
		}
		fmt.Println(")")
	}
	return nil
}

// atOnce runs each of workers goroutines calling run(worker) k times in a
// row, all at once, and returns the wall time until the last ends and how
// many runs said no. The first error is returned.
func atOnce(workers, k int, run func(w int) (bool, error)) (time.Duration, int, error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	no := 0
	t := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range k {
				said, err := run(w)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				if said {
					no++
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(t), no, first
}
