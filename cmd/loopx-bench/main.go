// Command loopx-bench times loopx commands as whole processes, the way
// agent hosts run them, and prints each as a ratio to `loopx version`
// measured in the same run (loopx's performance budgets are such ratios; absolute times on a shared
// machine are noise, ratios from one run are not):
//
//	go run ./cmd/loopx-bench [all] [-n 10]   # the whole table (default)
//	go run ./cmd/loopx-bench write [-n 10]   # 10 todos' round start+finish, concurrency, fsyncs
//	go run ./cmd/loopx-bench life [-n 10]    # the long-life project against the 10-todo one
//	go run ./cmd/loopx-bench watch [-runs 20] [-idle 60s]
//	go run ./cmd/loopx-bench serve [-n 200]  # loopx serve: server side and through the socket
//
// all builds loopx into a temporary directory and four projects in
// process, through the kernel, in a few transactions each:
//
//	10 todos; 200 todos and 5,000 evidence records; 2,000 todos;
//	10,000 todos; history: 1,000 todos, 50,000 evidence records,
//	100,000 audit events; long life: 50,000 todos, 20,000 finished
//	rounds (one every 10 minutes, each charged, the last ones in the
//	quota window) and 200,000 audit events.
//
// It then times, as processes: `decide should-run`; a PreToolUse hook
// (`loopx hook claude-code` fed a recorded Claude Code PreToolUse payload of a
// Bash "git push", its cwd set to the project); `round start` followed by `round finish` (one pair);
// `status`. Each is run twice to warm the caches, then -n times, the runs
// of all commands interleaved with `loopx version` runs so drift hits both.
// Below the table it prints each command on the long-life project as a
// ratio to the same command on the 10-todo project (the budget: 1.5×).
// Below that it prints the write path under contention
// (concurrency.go): four agents' rounds at once against one agent's in a
// row, and claims/s with 1 and 8 processes. Last it counts fsyncs per transaction with strace (-f -c, fsync and
// fdatasync calls of one round start+finish, divided by the store's
// revisions it added), when strace is on PATH.
//
// LOOPX_BENCH_KEEP=1 keeps the temporary directory.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

const spec = `agents: a1: {host: "shell", role: "executor"}
goals: g1: {
	objective: "Benchmark the decision path"
	agents: ["a1"]
	quota: {window: "24h", rounds: 100000, min_interval: "0s"}
}
`

// hookPayload is a PreToolUse payload recorded from Claude Code (a Bash
// "git push") with its cwd (%q) set to the project.
const hookPayload = `{"session_id":"8f0c2d7e-1b2a-4c9e-9d61-2f4b7a0e5c11","transcript_path":"/dev/null","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push origin feature/v2","description":"Push the v2 branch"},"tool_use_id":"toolu_01A9xQ"}`

// agentsSpec is spec with eight agents on g1 (the concurrency benchmarks:
// four agents' rounds at once, eight claiming processes).
const agentsSpec = `agents: {
	for i in ["1", "2", "3", "4", "5", "6", "7", "8"] {"a\(i)": {host: "shell", role: "executor"}}
}
goals: g1: {
	objective: "Benchmark the write path"
	agents: ["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"]
	quota: {window: "24h", rounds: 100000, min_interval: "0s"}
}
`

// fixture is one project's size.
type fixture struct {
	name                    string
	todos, evidence, events int
	// rounds are finished rounds of agent a1, one every 10 minutes up
	// to now, each with its charge.
	rounds int
	root   string
	// spec is the project's spec (the package's spec when empty).
	spec string
	// ids are the todos' ids, in the order they were added.
	ids []string
}

// command is one timed command: argv run in the project; pair runs round
// start and then finishes the round it opened.
type command struct {
	name string
	args []string
	hook bool
	pair bool
}

var commands = []command{
	{name: "decide should-run", args: []string{"decide", "should-run", "--goal", "g1", "--agent", "a1"}},
	{name: "hook PreToolUse", args: []string{"hook", "claude-code", "--event", "PreToolUse", "--goal", "g1", "--agent", "a1"}, hook: true},
	{name: "round start+finish", pair: true},
	{name: "status", args: []string{"status"}},
}

func main() {
	onSignal() // cleanup.go
	what := "all"
	args := os.Args[1:]
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		what, args = args[0], args[1:]
	}
	switch what {
	case "watch":
		os.Exit(watchMain(args)) // watch.go
	case "serve":
		os.Exit(serveMain(args)) // serve.go
	case "claims":
		os.Exit(claimsMain(args)) // serve.go
	case "all", "write", "life":
	default:
		fmt.Fprintf(os.Stderr, "loopx-bench: unknown benchmark %q (all, write, life, watch, serve, claims)\n", what)
		os.Exit(2)
	}
	fs := flag.NewFlagSet("all", flag.ExitOnError)
	n := fs.Int("n", 10, "timed runs of each command on each project")
	_ = fs.Parse(args)
	if *n < 1 {
		fmt.Fprintln(os.Stderr, "loopx-bench: -n must be at least 1")
		os.Exit(2)
	}
	if err := benchAll(*n, what); err != nil {
		fmt.Fprintln(os.Stderr, "loopx-bench:", err)
		os.Exit(1)
	}
}

// benchAll runs the table, the long-life ratios, the concurrency figures
// and the fsync count (what "all"); "write" keeps only the 10-todo project
// and the round start+finish pair (a quick run for the write path), "life"
// only the 10-todo and long-life projects and their ratios.
func benchAll(n int, what string) error {
	tmp, err := os.MkdirTemp("", "loopx-bench-")
	if err != nil {
		return err
	}
	if os.Getenv("LOOPX_BENCH_KEEP") == "" {
		defer os.RemoveAll(tmp)
	} else {
		defer fmt.Println("kept", tmp)
	}
	// The anchor directories go to the temporary directory too, for the
	// kernel here and for the loopx processes.
	if err := os.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state")); err != nil {
		return err
	}
	bin := filepath.Join(tmp, "loopx")
	build := exec.Command("go", "build", "-o", bin, "./cmd/loopx")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building loopx (run from the repository root): %w", err)
	}
	fixtures := []*fixture{
		{name: "10 todos", todos: 10},
		{name: "200 todos", todos: 200, evidence: 5000},
		{name: "2,000 todos", todos: 2000},
		{name: "10,000 todos", todos: 10000},
		{name: "history", todos: 1000, evidence: 50000, events: 100000},
		{name: "long life", todos: 50000, rounds: 20000, events: 200000 - 20000},
	}
	commands := commands
	switch what {
	case "write":
		fixtures, commands = fixtures[:1], commands[2:3]
	case "life":
		fixtures = []*fixture{fixtures[0], fixtures[len(fixtures)-1]}
	}
	for i, f := range fixtures {
		f.root = filepath.Join(tmp, fmt.Sprintf("p%d", i))
		t := time.Now()
		if err := makeProject(f); err != nil {
			return fmt.Errorf("project %s: %w", f.name, err)
		}
		fi, _ := os.Stat(filepath.Join(f.root, ".loopx", kernel.DBFile))
		fmt.Printf("project %-13s %6d todos %6d evidence %6d rounds %7d events  state.db %5.1f MB  built in %.1f s\n",
			f.name+":", f.todos, f.evidence, f.rounds, f.events+f.rounds, float64(fi.Size())/1e6, time.Since(t).Seconds())
	}
	version := func() (time.Duration, error) {
		d, _, err := timeRun(bin, "", []string{"version"}, "")
		return d, err
	}
	// Warm: every command twice on every project (adopts the spec, fills
	// the spec cache, the read model and the page cache).
	for _, f := range fixtures {
		for _, c := range commands {
			for range 2 {
				if _, _, err := runCommand(bin, f, c); err != nil {
					return err
				}
			}
		}
	}
	var base []time.Duration
	times := map[string][]time.Duration{}
	said := map[string]int{} // runs whose decision said no
	for range n {
		for _, f := range fixtures {
			for _, c := range commands {
				d, err := version()
				if err != nil {
					return err
				}
				base = append(base, d)
				d, no, err := runCommand(bin, f, c)
				if err != nil {
					return err
				}
				if no {
					said[f.name+"\x00"+c.name]++
				}
				times[f.name+"\x00"+c.name] = append(times[f.name+"\x00"+c.name], d)
			}
		}
	}
	v := median(base)
	fmt.Printf("\n%d runs each; ratio = the command's median / the median of `loopx version` (%d runs interleaved, %.1f ms on this machine)\n\n",
		n, len(base), ms(v))
	fmt.Printf("%-20s", "")
	for _, f := range fixtures {
		fmt.Printf("%14s", f.name)
	}
	fmt.Println()
	footnote := false
	for _, c := range commands {
		fmt.Printf("%-20s", c.name)
		for _, f := range fixtures {
			mark := " "
			if said[f.name+"\x00"+c.name] > 0 {
				mark, footnote = "*", true
			}
			fmt.Printf("%12.2f×%s", float64(median(times[f.name+"\x00"+c.name]))/float64(v), mark)
		}
		fmt.Println()
	}
	if footnote {
		fmt.Println("* some timed runs were answered no (exit 1: no round opened, e.g. the policy passed its deadline); their time is counted")
	}
	if what != "write" {
		life, small := fixtures[len(fixtures)-1], fixtures[0]
		fmt.Printf("\n%s against %s (the command's median there / its median here; budget 1.5×)\n", life.name, small.name)
		for _, c := range commands {
			fmt.Printf("%-20s%12.2f×\n", c.name, float64(median(times[life.name+"\x00"+c.name]))/float64(median(times[small.name+"\x00"+c.name])))
		}
	}
	if what == "life" {
		return nil
	}
	fmt.Println()
	if err := concurrency(bin, tmp, n, v); err != nil {
		return err
	}
	fmt.Println()
	return fsyncs(bin, fixtures)
}

// runCommand runs c once in f's project and returns its wall time (for a
// pair, both processes') and whether the decision said no (exit 1; for a
// pair, round start opened no round, and there is nothing to finish).
func runCommand(bin string, f *fixture, c command) (time.Duration, bool, error) {
	if !c.pair {
		stdin := ""
		if c.hook {
			stdin = fmt.Sprintf(hookPayload, f.root)
		}
		return timeRun(bin, f.root, c.args, stdin)
	}
	return runPair(bin, f, "a1")
}

// runPair runs `round start` as agent in f's project and finishes the
// round it opened (outcome progress), and returns the wall time of both
// processes and whether round start said no (exit 1: no round opened, and
// nothing to finish).
func runPair(bin string, f *fixture, agent string) (time.Duration, bool, error) {
	t := time.Now()
	out, err := output(bin, f.root, "round", "start", "--goal", "g1", "--agent", agent, "--json")
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 1 {
		return time.Since(t), true, nil
	}
	if err != nil {
		return 0, false, err
	}
	var started struct {
		Round *struct{ ID string } `json:"round"`
	}
	if err := json.Unmarshal(out, &started); err != nil || started.Round == nil {
		return 0, false, fmt.Errorf("project %s: round start opened no round: %s", f.name, out)
	}
	if _, err := output(bin, f.root, "round", "finish", started.Round.ID, "--outcome", "progress", "--agent", agent); err != nil {
		return 0, false, err
	}
	return time.Since(t), false, nil
}

// timeRun runs loopx args in dir; exit 1 (the decision says no) counts as
// a run (and says so), any other failure is an error.
func timeRun(bin, dir string, args []string, stdin string) (time.Duration, bool, error) {
	c := exec.Command(bin, args...)
	c.Dir = dir
	c.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	c.Stderr = &stderr
	t := time.Now()
	err := c.Run()
	d := time.Since(t)
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return d, true, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("loopx %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return d, false, nil
}

// runError is a failed run: its message, and the exec error (for its
// exit code).
type runError struct {
	msg  error
	exec error
}

func (e *runError) Error() string { return e.msg.Error() }
func (e *runError) Unwrap() error { return e.exec }

// output runs loopx args in dir and returns its stdout.
func output(bin, dir string, args ...string) ([]byte, error) {
	c := exec.Command(bin, args...)
	c.Dir = dir
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return out, &runError{fmt.Errorf("loopx %s: %w: %s%s", strings.Join(args, " "), err, stderr.String(), out), err}
	}
	return out, nil
}

// fsyncs prints the fsync and fdatasync calls (strace -f -c) of one round
// start+finish on each project over the revisions the pair added to the
// store.
func fsyncs(bin string, fixtures []*fixture) error {
	strace, err := exec.LookPath("strace")
	if err != nil {
		fmt.Println("fsyncs per transaction: strace not on PATH, not counted")
		return nil
	}
	fmt.Println("fsyncs per transaction (strace -f -c: fsync+fdatasync calls of one round start+finish / the store revisions it added):")
	for _, f := range fixtures {
		before, err := revision(f)
		if err != nil {
			return err
		}
		traced := func(args ...string) ([]byte, int, error) {
			log := filepath.Join(f.root, "strace.out")
			out, runErr := output(strace, f.root, append([]string{"-f", "-c", "-e", "trace=fsync,fdatasync", "-o", log, bin}, args...)...)
			b, err := os.ReadFile(log)
			calls := 0
			for _, line := range strings.Split(string(b), "\n") {
				fs := strings.Fields(line)
				if len(fs) >= 5 && (fs[len(fs)-1] == "fsync" || fs[len(fs)-1] == "fdatasync") {
					k, _ := strconv.Atoi(fs[3])
					calls += k
				}
			}
			if err == nil {
				err = runErr
			}
			return out, calls, err
		}
		out, c1, err := traced("round", "start", "--goal", "g1", "--agent", "a1", "--json")
		if ee := (*exec.ExitError)(nil); err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
			return err
		}
		var started struct {
			Round *struct{ ID string } `json:"round"`
		}
		c2 := 0
		if json.Unmarshal(out, &started) == nil && started.Round != nil {
			if _, c2, err = traced("round", "finish", started.Round.ID, "--outcome", "progress", "--agent", "a1"); err != nil {
				return err
			}
		}
		after, err := revision(f)
		if err != nil {
			return err
		}
		txs := after - before
		per := "-"
		if txs > 0 {
			per = fmt.Sprintf("%.1f", float64(c1+c2)/float64(txs))
		}
		fmt.Printf("  %-13s start %d + finish %d fsyncs, %d transactions: %s per transaction\n", f.name+":", c1, c2, txs, per)
	}
	return nil
}

func revision(f *fixture) (uint64, error) {
	s, err := kernel.Open(filepath.Join(f.root, ".loopx"), kernel.Options{})
	if err != nil {
		return 0, err
	}
	defer s.Close()
	rev, _ := s.Head()
	return rev, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// makeProject writes the spec and fills the store through the kernel, in
// transactions of up to 20,000 records, then shrinks it (as a long-lived
// store would be).
func makeProject(f *fixture) error {
	if err := os.MkdirAll(filepath.Join(f.root, "loopx"), 0o755); err != nil {
		return err
	}
	text := f.spec
	if text == "" {
		text = spec
	}
	if err := os.WriteFile(filepath.Join(f.root, "loopx", "loopx.cue"), []byte(text), 0o644); err != nil {
		return err
	}
	s, err := kernel.Open(filepath.Join(f.root, ".loopx"), kernel.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	const batch = 20000
	total := f.todos + f.evidence + f.events
	for done := 0; done < total; done += batch {
		err := s.Update(func(tx *kernel.Tx) error {
			for i := done; i < done+batch && i < total; i++ {
				var err error
				switch {
				case i < f.todos:
					var t records.Todo
					t, err = tx.AddTodo(records.Todo{Goal: "g1", Title: fmt.Sprintf("todo %d", i), Priority: i % 5})
					f.ids = append(f.ids, t.ID)
				case i < f.todos+f.evidence:
					_, err = tx.AddEvidence(records.Evidence{Goal: "g1", Kind: "test", Status: "pass",
						Summary: fmt.Sprintf("go test ./... run %d passed", i), Ref: "go test ./..."})
				default:
					err = tx.AppendEvent(records.Event{Kind: "round.finished", Goal: "g1", Actor: "a1",
						Subject: fmt.Sprintf("r-%d", i), Message: "progress"})
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if err := addRounds(s, f.rounds); err != nil {
		return err
	}
	return s.Shrink()
}

// addRounds adds n finished rounds of agent a1 to goal g1 of the store s,
// one every 10 minutes up to now, each with its charge: a project's
// history of rounds (a month of them is some 4,000).
func addRounds(s *kernel.Store, n int) error {
	const every, batch = 10 * time.Minute, 100
	at := time.Now().Add(-time.Duration(n) * every)
	s.SetClock(func() time.Time { return at })
	defer s.SetClock(time.Now)
	for done := 0; done < n; done += batch {
		err := s.Update(func(tx *kernel.Tx) error {
			for range min(batch, n-done) {
				r, err := tx.AddRound(records.Round{Goal: "g1", Agent: "a1"})
				if err != nil {
					return err
				}
				r.Status, r.FinishedAt, r.Outcome, r.Charged = records.RoundFinished, tx.Now(), records.OutcomeProgress, true
				if err := tx.PutRound(r); err != nil {
					return err
				}
				if _, err := tx.AppendLedger(records.LedgerEntry{Goal: "g1", Round: r.ID, Agent: "a1", Rounds: 1, Reason: "progress"}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		at = at.Add(batch * every)
	}
	return nil
}
