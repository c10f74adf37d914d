package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/testproject"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// These tests run loopx as separate OS processes, the way agent hosts do:
// the test binary is on $PATH as "loopx" (testscript.Main in TestMain).

// result is one loopx process's outcome.
type result struct {
	stdout, stderr string
	code           int
}

// runLoopx runs `loopx args…` in the project dir with a clean environment.
func runLoopx(t testing.TB, dir string, args ...string) result {
	t.Helper()
	return loopxProcess(t, dir, []string{"LOOPX_PROJECT=" + dir, "LOOPX_AGENT=", "LOOPX_ROUND=", "LOOPX_NOW="}, "", args...)
}

// loopxProcess runs `loopx args…` as its own process in dir, as an agent
// host does, with env on top of the test's environment and stdin, and
// returns its output and exit code; it fails the test when the process
// cannot be run at all.
func loopxProcess(t testing.TB, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command("loopx", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return runResult(t, cmd, stdin)
}

// runResult runs cmd with stdin and returns its output and exit code; the
// test fails when it cannot be run at all.
func runResult(t testing.TB, cmd *exec.Cmd, stdin string) result {
	t.Helper()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return r
}

// mustLoopx runs loopx and fails the test unless it exits 0.
func mustLoopx(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := runLoopx(t, dir, args...)
	if r.code != 0 {
		t.Fatalf("loopx %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// project makes a project whose spec declares agents p0..p(n-1) on goals
// g1 and g2 (internal/testproject), and returns its root.
func project(t testing.TB, agents int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("project: name: \"procs\"\nagents: {\n")
	for i := 0; i < agents; i++ {
		fmt.Fprintf(&b, "\tp%d: {host: \"shell\"}\n", i)
	}
	b.WriteString("}\ngoals: g1: {\n\tobjective: \"Many processes at once\"\n\tquota: {rounds: 100000, min_interval: \"0s\"}\n}\n")
	b.WriteString("goals: g2: {\n\tobjective: \"A second goal in the same store\"\n\tquota: {rounds: 100000, min_interval: \"0s\"}\n}\n")
	return testproject.New(t, b.String()).Root
}

func jsonField(t testing.TB, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
}

type leaseOut struct {
	Lease struct {
		Holder    string `json:"holder"`
		Version   uint64 `json:"version"`
		Epoch     uint64 `json:"epoch"`
		ExpiresAt string `json:"expires_at"`
	} `json:"lease"`
}

// seconds renders an RFC 3339 instant at second precision, as refusals show it.
func seconds(t testing.TB, s string) string {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return at.UTC().Format(time.RFC3339)
}

type errorsOut struct {
	Errors []struct {
		Code string         `json:"code"`
		Data map[string]any `json:"data"`
	} `json:"errors"`
}

// TestClaim_EightProcessesClaimOneTodo: 8 processes claim the
// same todo at the same instant, 10 times over, the winner releasing it
// between rounds. Exactly one wins each time; the others are refused
// already_claimed with the holder and the expiry; no update is lost (the
// version counts every claim and release) and the store opens cleanly.
func TestClaim_EightProcessesClaimOneTodo(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	const procs, rounds = 8, 10
	dir := project(t, procs)
	var todo struct{ ID string }
	jsonField(t, mustLoopx(t, dir, "todo", "add", "--goal", "g1", "--json", "The contended todo"), &todo)
	for round := 0; round < rounds; round++ {
		start := make(chan struct{})
		res := make([]result, procs)
		var wg sync.WaitGroup
		for p := 0; p < procs; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res[p] = runLoopx(t, dir, "todo", "claim", todo.ID, "--agent", fmt.Sprint("p", p), "--json")
			}()
		}
		close(start)
		wg.Wait()
		winner := -1
		var won leaseOut
		for p, r := range res {
			switch r.code {
			case 0:
				if winner >= 0 {
					t.Fatalf("round %d: p%d and p%d both won", round, winner, p)
				}
				winner = p
				jsonField(t, r.stdout, &won)
			case 1:
			default:
				t.Fatalf("round %d: p%d exit %d: %s%s", round, p, r.code, r.stdout, r.stderr)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody won", round)
		}
		if want := uint64(2*round + 1); won.Lease.Version != want || won.Lease.Epoch != uint64(round+1) {
			t.Fatalf("round %d: lease %+v, want version %d epoch %d", round, won.Lease, want, round+1)
		}
		for p, r := range res {
			if p == winner {
				continue
			}
			var e errorsOut
			jsonField(t, r.stdout, &e)
			if len(e.Errors) != 1 || e.Errors[0].Code != "already_claimed" ||
				e.Errors[0].Data["holder"] != fmt.Sprint("p", winner) || e.Errors[0].Data["expires_at"] != seconds(t, won.Lease.ExpiresAt) {
				t.Fatalf("round %d: loser p%d: %s", round, p, r.stdout)
			}
		}
		mustLoopx(t, dir, "todo", "release", todo.ID, "--agent", fmt.Sprint("p", winner), "--expected-version", fmt.Sprint(won.Lease.Version))
	}
	s, err := kernel.Open(filepath.Join(dir, ".loopx"), kernel.Options{LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("store does not open cleanly: %v", err)
	}
	defer s.Close()
	if s.Recovered() != nil {
		t.Fatalf("torn tail after the run: %+v", s.Recovered())
	}
	var claims, releases int
	err = s.View(func(tx *kernel.Tx) error {
		td, err := tx.Todo(todo.ID)
		if err != nil {
			return err
		}
		if td.Lease.Version != 2*rounds || td.Lease.Epoch != rounds || !td.Lease.Released {
			t.Errorf("final lease %+v, want version %d epoch %d released", td.Lease, 2*rounds, rounds)
		}
		return tx.Events(func(ev records.Event) bool {
			switch ev.Kind {
			case "todo.claimed":
				claims++
			case "todo.released":
				releases++
			}
			return true
		})
	})
	if err != nil || claims != rounds || releases != rounds {
		t.Fatalf("events: %d claims, %d releases, %v; want %d each", claims, releases, err, rounds)
	}
}

// TestUpdate_ConcurrentUpdatesLeaveOtherGoalUntouched, across
// processes: 50 concurrent CLI updates to goal g2 leave goal g1's records
// byte-identical, and every update lands.
func TestUpdate_ConcurrentUpdatesLeaveOtherGoalUntouched(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	dir := project(t, 2)
	mustLoopx(t, dir, "todo", "add", "--goal", "g1", "Goal one's todo")
	mustLoopx(t, dir, "evidence", "add", "--goal", "g1", "goal one's evidence")
	g1 := func() string {
		return mustLoopx(t, dir, "todo", "list", "--goal", "g1", "--json") + mustLoopx(t, dir, "evidence", "list", "--goal", "g1", "--json") +
			mustLoopx(t, dir, "goal", "show", "g1", "--json")
	}
	before := g1()
	var wg sync.WaitGroup
	codes := make([]int, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"todo", "add", "--goal", "g2", fmt.Sprint("g2 todo ", i)}
			if i%2 == 1 {
				args = []string{"evidence", "add", "--goal", "g2", fmt.Sprint("g2 evidence ", i)}
			}
			codes[i] = runLoopx(t, dir, args...).code
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Fatalf("update %d exited %d", i, c)
		}
	}
	if after := g1(); after != before {
		t.Fatalf("goal g1 changed:\n%s\n---\n%s", before, after)
	}
	var todos, evs []json.RawMessage
	jsonField(t, mustLoopx(t, dir, "todo", "list", "--goal", "g2", "--json"), &todos)
	jsonField(t, mustLoopx(t, dir, "evidence", "list", "--goal", "g2", "--json"), &evs)
	if len(todos) != 25 || len(evs) != 25 {
		t.Fatalf("g2 has %d todos and %d evidence, want 25 each", len(todos), len(evs))
	}
}

// TestHammer_SixteenProcessesMixedCommands runs 16 workers, each starting
// 4 loopx processes (2 with -short) one after another: add a todo,
// add evidence, claim and release a shared todo, decide, status, agent
// list. Afterwards every acknowledged write is in the store: no lost
// write, no internal error, and the store opens cleanly.
func TestHammer_SixteenProcessesMixedCommands(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	const workers, shared = 16, 4
	// A number of commands per worker, not a duration: the same work on
	// a fast machine and a loaded one (it ran for 10 s, taking whatever
	// the processors had: about 130 processes and 21 CPU s alone, half
	// that beside the rest of the suite). 16 processes at once, 64 in
	// all (about 0.16 CPU s each: most compile a policy); the workers
	// start at different kinds, so each kind runs 10 or 11 times.
	perWorker := 4
	if testing.Short() {
		perWorker = 2
	}
	dir := project(t, workers)
	var sharedIDs []string
	for i := 0; i < shared; i++ {
		var td struct{ ID string }
		jsonField(t, mustLoopx(t, dir, "todo", "add", "--goal", "g2", "--json", fmt.Sprint("shared ", i)), &td)
		sharedIDs = append(sharedIDs, td.ID)
	}
	var (
		mu        sync.Mutex
		todoIDs   = map[string]bool{}
		evidence  int
		leaseOps  = map[string]int{}
		claims    int
		processes atomic.Int64
		failures  []string
	)
	fail := func(format string, a ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, a...))
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			agent := fmt.Sprint("p", w)
			for n := range perWorker {
				processes.Add(1)
				switch (n + w) % 6 {
				case 0:
					r := runLoopx(t, dir, "todo", "add", "--goal", "g1", "--json", fmt.Sprintf("%s todo %d", agent, n))
					if r.code != 0 {
						fail("todo add: exit %d %s", r.code, r.stderr)
						continue
					}
					var td struct{ ID string }
					jsonField(t, r.stdout, &td)
					mu.Lock()
					todoIDs[td.ID] = true
					mu.Unlock()
				case 1:
					r := runLoopx(t, dir, "evidence", "add", "--goal", "g1", fmt.Sprintf("%s evidence %d", agent, n))
					if r.code != 0 {
						fail("evidence add: exit %d %s", r.code, r.stderr)
						continue
					}
					mu.Lock()
					evidence++
					mu.Unlock()
				case 2:
					id := sharedIDs[(n+w)%shared]
					r := runLoopx(t, dir, "todo", "claim", id, "--agent", agent, "--json")
					if r.code == 1 {
						if !strings.Contains(r.stdout, `"already_claimed"`) {
							fail("claim refused with %s", r.stdout)
						}
						continue
					}
					if r.code != 0 {
						fail("claim: exit %d %s", r.code, r.stderr)
						continue
					}
					var l leaseOut
					jsonField(t, r.stdout, &l)
					rel := runLoopx(t, dir, "todo", "release", id, "--agent", agent, "--expected-version", fmt.Sprint(l.Lease.Version))
					mu.Lock()
					claims++
					leaseOps[id]++
					if rel.code == 0 {
						leaseOps[id]++
					}
					mu.Unlock()
					if rel.code != 0 {
						fail("release of a lease just won: exit %d %s", rel.code, rel.stderr)
					}
				case 3:
					if r := runLoopx(t, dir, "decide", "should-run", "--goal", "g1", "--agent", agent); r.code > 1 {
						fail("decide: exit %d %s", r.code, r.stderr)
					}
				case 4:
					if r := runLoopx(t, dir, "status", "--json"); r.code != 0 {
						fail("status: exit %d %s", r.code, r.stderr)
					}
				case 5:
					if r := runLoopx(t, dir, "agent", "list", "--json"); r.code != 0 {
						fail("agent list: exit %d %s", r.code, r.stderr)
					}
				}
			}
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d failures, first: %s", len(failures), failures[0])
	}
	t.Logf("%d processes: %d todos, %d evidence, %d claims", processes.Load(), len(todoIDs), evidence, claims)
	s, err := kernel.Open(filepath.Join(dir, ".loopx"), kernel.Options{LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("store does not open cleanly: %v", err)
	}
	defer s.Close()
	err = s.View(func(tx *kernel.Tx) error {
		for id := range todoIDs {
			if _, err := tx.Todo(id); err != nil {
				t.Errorf("acknowledged todo %s lost: %v", id, err)
			}
		}
		if n, err := tx.EvidenceCount("g1"); err != nil || n != evidence {
			t.Errorf("evidence: %d stored, %d acknowledged (%v)", n, evidence, err)
		}
		for _, id := range sharedIDs {
			td, err := tx.Todo(id)
			if err != nil {
				return err
			}
			var v uint64
			if td.Lease != nil {
				v = td.Lease.Version
			}
			if v != uint64(leaseOps[id]) {
				t.Errorf("shared todo %s: lease version %d, %d acknowledged lease changes", id, v, leaseOps[id])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkClaims_EightProcesses measures claims per second with 8
// concurrent loopx processes, each claiming its own todos (every claim a
// whole process: start, lock, open, one transaction, close).
func BenchmarkClaims_EightProcesses(b *testing.B) {
	const procs = 8
	dir := project(b, procs)
	mustLoopx(b, dir, "vet")
	s, err := kernel.Open(filepath.Join(dir, ".loopx"), kernel.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, b.N)
	err = s.Update(func(tx *kernel.Tx) error {
		for i := range ids {
			td, err := tx.AddTodo(records.Todo{Goal: "g1", Title: fmt.Sprint("todo ", i)})
			if err != nil {
				return err
			}
			ids[i] = td.ID
		}
		return nil
	})
	s.Close()
	if err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(ids) {
					return
				}
				if r := runLoopx(b, dir, "todo", "claim", ids[i], "--agent", fmt.Sprint("p", p)); r.code != 0 {
					b.Errorf("claim: exit %d %s", r.code, r.stderr)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "claims/s")
}
