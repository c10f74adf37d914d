package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// crashRunsEnv sets how many kill -9 runs TestCrash_Kill9AtRandomInstants
// makes: a few in go test, 100 in the CI step that sets it.
const crashRunsEnv = "LOOPX_CRASH_RUNS"

// jsonCode finds the first code in a --json answer.
var jsonCode = regexp.MustCompile(`"code": "[a-z_]+"`)

// crashOp is one mutation a crash worker ran as one loopx process, and
// what became of it: acknowledged (exit 0), refused (exited non-zero by
// itself) or unknown (killed before it answered).
type crashOp struct {
	kind    string // add, claim, release, start, finish, gate
	agent   string
	key     string // the todo title, the gate question, the todo or round id
	id      string // what an acknowledged add, start or gate gave back
	outcome string // acked, refused, unknown
	code    int
	stderr  string
}

// crashRun is one run: workers mutating until every loopx process running
// at one random instant is killed with SIGKILL.
type crashRun struct {
	dir     string
	mu      sync.Mutex
	stopped bool
	running map[*exec.Cmd]string
	killed  []string
	ops     []crashOp
}

// loopx runs one loopx process unless the run is stopped; ok is false once
// it is (the process was not started, or was killed: recorded as unknown).
// The caller records an answered op (record), with the id it printed.
func (r *crashRun) loopx(op crashOp, args ...string) (crashOp, string, bool) {
	cmd := exec.Command("loopx", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "LOOPX_PROJECT="+r.dir, "LOOPX_AGENT=", "LOOPX_ROUND=", "LOOPX_NOW=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return op, "", false
	}
	// Started under the lock: the kill sees every process started before it.
	if err := cmd.Start(); err != nil {
		r.mu.Unlock()
		op.outcome, op.code, op.stderr = "refused", -1, err.Error()
		r.record(op)
		return op, "", false
	}
	r.running[cmd] = op.kind + " " + op.key
	r.mu.Unlock()
	err := cmd.Wait()
	r.mu.Lock()
	delete(r.running, cmd)
	r.mu.Unlock()
	var ee *exec.ExitError
	switch {
	case err == nil:
		op.outcome = "acked"
	case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled():
		op.outcome = "unknown"
	case errors.As(err, &ee):
		// Under --json the refusal is on stdout: its first code says it.
		why := errb.String()
		if m := jsonCode.FindString(out.String()); why == "" && m != "" {
			why = m
		}
		op.outcome, op.code, op.stderr = "refused", ee.ExitCode(), why
	default:
		op.outcome, op.stderr = "unknown", err.Error()
	}
	if op.outcome == "unknown" {
		r.record(op)
		return op, "", false
	}
	return op, out.String(), true
}

func (r *crashRun) record(op crashOp) {
	r.mu.Lock()
	r.ops = append(r.ops, op)
	r.mu.Unlock()
}

// kill stops the run: every loopx process running now gets SIGKILL, and
// none starts after.
func (r *crashRun) kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	for cmd, what := range r.running {
		if cmd.Process.Kill() == nil {
			r.killed = append(r.killed, what)
		}
	}
}

// work is one worker: agent's mutations in turn (add a todo, claim it,
// release it, start a round, finish it, raise a gate), from step offset,
// finishing the agent's round a killed run left open first.
func (r *crashRun) work(t *testing.T, run, w, offset int, agent, openRound string) {
	var todo, lease, round string
	round = openRound
	kinds := []string{"add", "claim", "release", "start", "finish", "gate"}
	for n := 0; ; n++ {
		name := fmt.Sprintf("run %d worker %d step %d", run, w, n)
		kind := kinds[(n+offset)%len(kinds)]
		if round != "" && kind != "finish" {
			kind = "finish"
		}
		switch kind {
		case "add":
			op, out, ok := r.loopx(crashOp{kind: "add", agent: agent, key: name}, "todo", "add", "--goal", "g1", "--json", name)
			if !ok {
				return
			}
			if op.outcome == "acked" {
				var td struct{ ID string }
				if json.Unmarshal([]byte(out), &td) != nil || td.ID == "" {
					t.Errorf("todo add printed no id: %s", out)
					return
				}
				op.id, todo = td.ID, td.ID
			}
			r.record(op)
		case "claim":
			if todo == "" {
				continue
			}
			op, out, ok := r.loopx(crashOp{kind: "claim", agent: agent, key: todo}, "todo", "claim", todo, "--agent", agent, "--json")
			if !ok {
				return
			}
			r.record(op)
			if op.outcome == "acked" {
				var l leaseOut
				jsonField(t, out, &l)
				lease = strconv.FormatUint(l.Lease.Version, 10)
			} else {
				todo = ""
			}
		case "release":
			if todo == "" || lease == "" {
				continue
			}
			op, _, ok := r.loopx(crashOp{kind: "release", agent: agent, key: todo}, "todo", "release", todo, "--agent", agent, "--expected-version", lease)
			if !ok {
				return
			}
			r.record(op)
			todo, lease = "", ""
		case "start":
			op, out, ok := r.loopx(crashOp{kind: "start", agent: agent, key: agent}, "round", "start", "--goal", "g1", "--agent", agent, "--json")
			if !ok {
				return
			}
			if op.outcome == "acked" {
				var st struct{ Round struct{ ID string } }
				if json.Unmarshal([]byte(out), &st) != nil || st.Round.ID == "" {
					t.Errorf("round start printed no round: %s", out)
					return
				}
				op.id, round = st.Round.ID, st.Round.ID
			}
			r.record(op)
		case "finish":
			if round == "" {
				continue
			}
			op, _, ok := r.loopx(crashOp{kind: "finish", agent: agent, key: round}, "round", "finish", round, "--outcome", "progress", "--done", "--agent", agent)
			if !ok {
				return
			}
			r.record(op)
			round = ""
		case "gate":
			q := fmt.Sprintf("Ship the build of %s to the users now?", name)
			op, out, ok := r.loopx(crashOp{kind: "gate", agent: agent, key: q}, "gate", "raise", "--goal", "g2", "--question", q, "--json")
			if !ok {
				return
			}
			if op.outcome == "acked" {
				var g struct{ ID string }
				if json.Unmarshal([]byte(out), &g) != nil || g.ID == "" {
					t.Errorf("gate raise printed no id: %s", out)
					return
				}
				op.id = g.ID
			}
			r.record(op)
		}
	}
}

// TestCrash_Kill9AtRandomInstants runs the real command line as several
// processes at once — four workers, each adding todos, claiming and
// releasing them, starting and finishing rounds and raising gates, each
// its own loopx process — and kills every loopx process running at a
// random instant with SIGKILL (every other run: as the store's files or
// the anchor take a random nth write, which lands inside commits), run
// after run on the same project. After each kill: doctor exits 0 (it may
// report the recovery it made), the event log verifies, every write a
// process acknowledged (exit 0) is in the store with its audit event, and
// no write a process refused (a non-zero exit of its own) is there. The
// counts are in the test's output.
// Six runs in go test; LOOPX_CRASH_RUNS=100 in the CI step;
// LOOPX_CRASH_SEED repeats the kill instants of the seed the output names.
func TestCrash_Kill9AtRandomInstants(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	if testing.Short() {
		t.Skip("kills processes over many runs")
	}
	runs := 6
	if v := os.Getenv(crashRunsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a number of runs", crashRunsEnv, v)
		}
		runs = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("LOOPX_CRASH_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	const workers = 4
	dir := project(t, workers)
	mustLoopx(t, dir, "todo", "add", "--goal", "g1", "seed")
	adir, err := kernel.AnchorDirOf(filepath.Join(dir, ".loopx"))
	if err != nil {
		t.Fatal(err)
	}
	var (
		total, refusals                     = map[string]int{}, map[string]int{}
		recovered, onWrite                  int
		all                                 []crashOp
		lost, unaudited, late, doctorFailed int
		firstFailure                        string
	)
	fail := func(format string, a ...any) {
		if firstFailure == "" {
			firstFailure = fmt.Sprintf(format, a...)
		}
	}
	defer func() {
		t.Logf("kill -9 at random instants (seed %d): %d runs (%d killed at a write), %d mutations acknowledged, %d refused, %d killed before they answered; acknowledged writes lost %d, acknowledged without their audit event %d, refused writes applied later %d; %d recoveries on open (store.recovered), doctor failed after %d runs",
			seed, runs, onWrite, total["acked"], total["refused"], total["unknown"], lost, unaudited, late, recovered, doctorFailed)
		for what, n := range refusals {
			t.Logf("refused %d time(s): %s", n, what)
		}
	}()
	for run := 0; run < runs; run++ {
		open := openRounds(t, dir, workers)
		lastSeq := lastEventSeq(t, dir)
		r := &crashRun{dir: dir, running: map[*exec.Cmd]string{}}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				agent := fmt.Sprint("p", w)
				r.work(t, run, w, rng.IntN(6), agent, open[agent])
			}()
		}
		// A random instant: most processes are killed somewhere inside
		// their open, decision or close. Every other run the kill comes
		// instead as the store's files or the anchor take their nth write
		// (n random): inside a commit, or between it and the anchor.
		instant := time.NewTimer(time.Duration(200+rng.IntN(2800)) * time.Millisecond)
		var write <-chan struct{}
		stop := func() {}
		if run%2 == 1 {
			write, stop = nthWrite(t, 1+rng.IntN(24), filepath.Join(dir, ".loopx"), adir)
		}
		select {
		case <-instant.C:
		case <-write:
			onWrite++
		}
		r.kill()
		instant.Stop()
		stop()
		wg.Wait()
		for _, op := range r.ops {
			total[op.outcome]++
			if op.outcome == "refused" {
				line, _, _ := strings.Cut(strings.TrimSpace(op.stderr), "\n")
				refusals[fmt.Sprintf("%s exit %d: %.80s", op.kind, op.code, line)]++
			}
		}
		doc := runLoopx(t, dir, "doctor")
		if doc.code != 0 {
			doctorFailed++
			fail("run %d: doctor exit %d after killing %v\n%s%s", run, doc.code, r.killed, doc.stdout, doc.stderr)
		}
		l, u, lt, rec := checkCrashRun(t, dir, lastSeq, r.ops, func(format string, a ...any) {
			fail("run %d (killed %v): "+format, append([]any{run, r.killed}, a...)...)
		})
		lost, unaudited, late, recovered = lost+l, unaudited+u, late+lt, recovered+rec
		if firstFailure != "" {
			t.Fatalf("%s", firstFailure)
		}
		all = append(all, r.ops...)
	}
	// Once more over every run: no later recovery lost a write acknowledged
	// in an earlier run, nor applied one refused there. (A finish refused
	// in one run may be made in a later one, which finishes the rounds a
	// killed run left open.)
	finished := map[string]bool{}
	for _, op := range all {
		if op.kind == "finish" && op.outcome != "refused" {
			finished[op.key] = true
		}
	}
	all = slices.DeleteFunc(all, func(op crashOp) bool { return op.kind == "finish" && op.outcome == "refused" && finished[op.key] })
	l, u, lt, _ := checkCrashRun(t, dir, 0, all, func(format string, a ...any) { fail("after every run: "+format, a...) })
	t.Logf("after every run: %d acknowledged writes lost, %d acknowledged without their audit event, %d refused writes applied", l, u, lt)
	lost, unaudited, late = lost+l, unaudited+u, late+lt
	if firstFailure != "" {
		t.Fatalf("%s", firstFailure)
	}
	if total["unknown"] == 0 {
		t.Fatalf("no run killed a process mid-command")
	}
}

// nthWrite returns a channel closed when the files in dirs have taken
// their nth write or creation since the call (fsnotify), and a function
// that stops watching.
func nthWrite(t *testing.T, n int, dirs ...string) (<-chan struct{}, func()) {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	ch := make(chan struct{})
	go func() {
		seen := 0
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create) {
					if seen++; seen == n {
						close(ch)
					}
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return ch, func() { _ = w.Close() }
}

// openRounds are the rounds a killed run left open, by agent.
func openRounds(t *testing.T, dir string, workers int) map[string]string {
	t.Helper()
	s := openCrashStore(t, dir)
	defer s.Close()
	out := map[string]string{}
	if err := s.View(func(tx *kernel.Tx) error {
		for w := range workers {
			agent := fmt.Sprint("p", w)
			rs, err := tx.OpenRounds("g1", agent)
			if err != nil {
				return err
			}
			if len(rs) > 0 {
				out[agent] = rs[0].ID
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func lastEventSeq(t *testing.T, dir string) uint64 {
	t.Helper()
	s := openCrashStore(t, dir)
	defer s.Close()
	var last uint64
	if err := s.View(func(tx *kernel.Tx) error {
		return tx.Events(func(ev records.Event) bool { last = max(last, ev.Seq); return true })
	}); err != nil {
		t.Fatal(err)
	}
	return last
}

func openCrashStore(t *testing.T, dir string) *kernel.Store {
	t.Helper()
	s, err := kernel.Open(filepath.Join(dir, ".loopx"), kernel.Options{LockTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("the store does not open: %v", err)
	}
	return s
}

// checkCrashRun holds the store to what one run's processes answered: each
// acknowledged write is there with its audit event (an event of this run,
// after seq since), and no refused one is. It returns the counts of
// acknowledged writes lost, acknowledged writes without their event, and
// refused writes applied, and the recoveries an open made (store.recovered
// events).
func checkCrashRun(t *testing.T, dir string, since uint64, ops []crashOp, fail func(string, ...any)) (lost, unaudited, late, recoveries int) {
	t.Helper()
	s := openCrashStore(t, dir)
	defer s.Close()
	if _, err := s.VerifyEvents(); err != nil {
		fail("the event log does not verify: %v", err)
	}
	// This run's events by kind, actor and subject; a todo.claimed in the
	// transaction of a round.started (the round's claim) is the start's.
	type evKey struct{ kind, actor, subject string }
	events := map[evKey]int{}
	starts := map[string]int{}
	var prev records.Event
	todos := map[string]records.Todo{}
	titles, questions := map[string]bool{}, map[string]bool{}
	err := s.View(func(tx *kernel.Tx) error {
		if err := tx.Events(func(ev records.Event) bool {
			if ev.Seq > since {
				k := evKey{ev.Kind, ev.Actor, ev.Subject}
				if ev.Kind == "todo.claimed" && prev.Kind == "round.started" && prev.Actor == ev.Actor && prev.Seq == ev.Seq-1 {
					k.kind = "todo.claimed_by_round"
				}
				events[k]++
				switch ev.Kind {
				case "round.started":
					starts[ev.Actor]++
				case "store.recovered":
					recoveries++
				}
			}
			prev = ev
			return true
		}); err != nil {
			return err
		}
		ts, err := tx.Todos("g1")
		if err != nil {
			return err
		}
		for _, td := range ts {
			todos[td.ID] = td
			titles[td.Title] = true
		}
		gs, err := tx.Gates("g2")
		if err != nil {
			return err
		}
		for _, g := range gs {
			questions[g.Question] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	startsAllowed := map[string]int{}
	for _, op := range ops {
		if op.kind == "start" && op.outcome != "refused" {
			startsAllowed[op.agent]++
		}
	}
	for agent, n := range starts {
		if n > startsAllowed[agent] {
			late += n - startsAllowed[agent]
			fail("%d round.started events of %s, %d round starts acknowledged or killed", n, agent, startsAllowed[agent])
		}
	}
	for _, op := range ops {
		var (
			there, audited bool
			event          evKey
		)
		switch op.kind {
		case "add":
			there, event = titles[op.key], evKey{"todo.added", "human", op.id}
			if op.outcome == "acked" && todos[op.id].Title != op.key {
				there = false
			}
		case "claim":
			event = evKey{"todo.claimed", op.agent, op.key}
			there = events[event] > 0
		case "release":
			event = evKey{"todo.released", op.agent, op.key}
			there = events[event] > 0
		case "start":
			event = evKey{"round.started", op.agent, op.id}
			if op.outcome == "acked" {
				there = roundStatus(t, s, op.id) != ""
			}
		case "finish":
			event = evKey{"round.finished", op.agent, op.key}
			there = roundStatus(t, s, op.key) == "finished"
		case "gate":
			there, event = questions[op.key], evKey{"gate.raised", "human", op.id}
		}
		audited = events[event] > 0
		switch op.outcome {
		case "acked":
			if !there {
				lost++
				fail("acknowledged %s %s (%s) is not in the store", op.kind, op.key, op.id)
			}
			if !audited {
				unaudited++
				fail("acknowledged %s %s (%s) has no %s event of %s on %s", op.kind, op.key, op.id, event.kind, event.actor, event.subject)
			}
		case "refused":
			if op.kind != "start" && there {
				late++
				fail("refused %s %s (exit %d: %s) is in the store", op.kind, op.key, op.code, strings.TrimSpace(op.stderr))
			}
		}
	}
	return lost, unaudited, late, recoveries
}

// roundStatus is round id's status in s, "" when there is no such round.
func roundStatus(t *testing.T, s *kernel.Store, id string) string {
	t.Helper()
	var st string
	_ = s.View(func(tx *kernel.Tx) error {
		rd, err := tx.Round(id)
		if err == nil {
			st = rd.Status
		}
		return nil
	})
	return st
}
