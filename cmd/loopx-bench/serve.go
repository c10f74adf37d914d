package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
)

// serveMain is `loopx-bench serve`: what `loopx serve` costs and saves.
//
//   - server side: the work the server does per request, in process —
//     admitted as the server admits a hook or a decision (Resident.Admit:
//     one per processor at a time, first come first served), an engine
//     over the store it keeps open (engine.Resident), one decision,
//     close, with the server's garbage collection (engine.ServeGC) — for should_run and for a permission (a Bash
//     "go test ./..."), by 1, 2 and 8 clients at once, as p50 and p99 of
//     each request's latency (the budgets: permission p99 ≤ 1 ms, should_run
//     p99 ≤ 2 ms at 200 todos);
//   - whole processes: `decide should-run`, a PreToolUse hook and a round
//     start+finish, with and without a server running on the project,
//     as ratios to `loopx version` (the budgets through the server: ≤ 1.2×
//     for decide and hook; ≤ 2× two `loopx version` runs for the pair);
//     claims/s by 8 processes with and without a server.
func serveMain(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	n := fs.Int("n", 200, "requests per client (server side); processes per command are n/10")
	_ = fs.Parse(args)
	if *n < 10 {
		fmt.Fprintln(os.Stderr, "loopx-bench: -n must be at least 10")
		return 2
	}
	if err := benchServe(*n); err != nil {
		fmt.Fprintln(os.Stderr, "loopx-bench:", err)
		return 1
	}
	return 0
}

// claimsMain is `loopx-bench claims`: only the last figure of `serve`,
// claims/s by 8 processes with and without a server (a quick run).
func claimsMain(args []string) int {
	fs := flag.NewFlagSet("claims", flag.ExitOnError)
	n := fs.Int("n", 10, "claims per process each way")
	_ = fs.Parse(args)
	if *n < 1 {
		fmt.Fprintln(os.Stderr, "loopx-bench: -n must be at least 1")
		return 2
	}
	tmp, bin, err := serveTemp()
	if err == nil {
		defer os.RemoveAll(tmp)
		err = claimsWithServer(bin, tmp, *n)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loopx-bench:", err)
		return 1
	}
	return 0
}

// serveTemp makes the benchmark's temporary directory (the projects'
// state home too) and builds loopx into it.
func serveTemp() (tmp, bin string, err error) {
	tmp, err = os.MkdirTemp("", "loopx-bench-serve-")
	if err != nil {
		return "", "", err
	}
	atExit(func() { _ = os.RemoveAll(tmp) })
	if err := os.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state")); err != nil {
		return tmp, "", err
	}
	bin = filepath.Join(tmp, "loopx")
	build := exec.Command("go", "build", "-o", bin, "./cmd/loopx")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return tmp, "", fmt.Errorf("building loopx (run from the repository root): %w", err)
	}
	return tmp, bin, nil
}

func benchServe(n int) error {
	tmp, bin, err := serveTemp()
	if tmp != "" {
		defer os.RemoveAll(tmp)
	}
	if err != nil {
		return err
	}
	f := &fixture{name: "200 todos", todos: 200, evidence: 5000, root: filepath.Join(tmp, "p200"), spec: agentsSpec}
	if err := makeProject(f); err != nil {
		return err
	}
	for _, c := range commands[:3] { // warm: adopt, spec cache, read model
		if _, _, err := runCommand(bin, f, c); err != nil {
			return err
		}
	}
	if err := serverSide(f.root, n); err != nil {
		return err
	}
	if err := wholeProcesses(bin, f, max(n/10, 5)); err != nil {
		return err
	}
	return claimsWithServer(bin, tmp, max(n/10, 5))
}

// claimsWithServer prints claims/s by 8 `todo claim` processes at once
// (distinct todos, agents a1…a8), without and then with a server on the
// project, 8·k claims each.
func claimsWithServer(bin, tmp string, k int) error {
	m := 8 * k
	// Two batches of distinct todos and the one claimed first (at least
	// 200: the claim order reads them all).
	f := &fixture{name: "claims", todos: max(200, 2*m+1), spec: agentsSpec, root: filepath.Join(tmp, "claims")}
	if err := makeProject(f); err != nil {
		return err
	}
	if len(f.ids) < 2*m+1 {
		return fmt.Errorf("claims: %d todos for %d claims", len(f.ids), 2*m)
	}
	if _, _, err := timeRun(bin, f.root, []string{"todo", "claim", f.ids[0], "--agent", "a1"}, ""); err != nil {
		return err
	}
	rate := func(batch []string) (float64, int, error) {
		var next atomic.Int64
		d, no, err := atOnce(8, k, func(w int) (bool, error) {
			id := batch[next.Add(1)-1]
			_, said, err := timeRun(bin, f.root, []string{"todo", "claim", id, "--agent", fmt.Sprintf("a%d", w+1)}, "")
			return said, err
		})
		return float64(len(batch)) / d.Seconds(), no, err
	}
	without, no1, err := rate(f.ids[1 : 1+m])
	if err != nil {
		return err
	}
	stop, err := startServer(bin, f.root)
	if err != nil {
		return err
	}
	defer stop()
	with, no2, err := rate(f.ids[1+m : 1+2*m])
	if err != nil {
		return err
	}
	fmt.Printf("claims/s with 8 processes: %.1f without a server, %.1f through `loopx serve` (%.2f×; %d claims each, %d answered no)\n",
		without, with, with/without, m, no1+no2)
	return nil
}

// serverSide prints p50/p99 of the server's per-request work for 1, 2
// and 8 clients at once, each making n requests.
func serverSide(root string, n int) error {
	r, err := engine.OpenResident(engine.Options{Root: root})
	if err != nil {
		return err
	}
	defer r.Close()
	engine.ServeGC() // as the server does
	ctx := context.Background()
	asks := []struct {
		name string
		do   func(e *engine.Engine) error
	}{
		{"should_run", func(e *engine.Engine) error {
			_, err := e.Decide(ctx, engine.Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"})
			return err
		}},
		{"permission", func(e *engine.Engine) error {
			_, err := e.Permission(ctx, "g1", "a1", toolcall.Call{Tool: "Bash", Command: "go test ./..."})
			return err
		}},
	}
	fmt.Printf("server side (200 todos, 5,000 evidence; an engine over the kept store per request):\n")
	for _, a := range asks {
		for _, clients := range []int{1, 2, 8} {
			lat := make([][]time.Duration, clients)
			var wg sync.WaitGroup
			errc := make(chan error, clients)
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range n {
						t := time.Now()
						release := r.Admit() // as the server admits a hook or a decision
						e := engine.New(engine.Options{Root: root, Resident: r})
						err := a.do(e)
						e.Close()
						release()
						if err != nil {
							errc <- err
							return
						}
						lat[c] = append(lat[c], time.Since(t))
					}
				}()
			}
			wg.Wait()
			close(errc)
			if err := <-errc; err != nil {
				return err
			}
			all := slices.Concat(lat...)
			slices.Sort(all)
			fmt.Printf("  %-10s %d client(s): p50 %6.2f ms  p99 %6.2f ms  (%d requests)\n", a.name, clients,
				ms(all[len(all)/2]), ms(all[len(all)*99/100]), len(all))
		}
	}
	return nil
}

// wholeProcesses times decide, the hook and a round pair as processes
// without a server and then with one, interleaved with `loopx version`,
// and claims/s by 8 processes each way.
func wholeProcesses(bin string, f *fixture, n int) error {
	measure := func(label string) error {
		var base []time.Duration
		times := map[string][]time.Duration{}
		for range n {
			for _, c := range commands[:3] {
				d, _, err := timeRun(bin, "", []string{"version"}, "")
				if err != nil {
					return err
				}
				base = append(base, d)
				d, _, err = runCommand(bin, f, c)
				if err != nil {
					return err
				}
				times[c.name] = append(times[c.name], d)
			}
		}
		v := median(base)
		fmt.Printf("%s (`loopx version` %.1f ms):\n", label, ms(v))
		for _, c := range commands[:3] {
			m := median(times[c.name])
			fmt.Printf("  %-20s %6.1f ms  %5.2f×\n", c.name, ms(m), float64(m)/float64(v))
		}
		return nil
	}
	if err := measure("processes without a server"); err != nil {
		return err
	}
	stop, err := startServer(bin, f.root)
	if err != nil {
		return err
	}
	defer stop()
	for _, c := range commands[:3] {
		if _, _, err := runCommand(bin, f, c); err != nil {
			return err
		}
	}
	return measure("processes through `loopx serve`")
}
