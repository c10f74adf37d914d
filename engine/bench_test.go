package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

const benchSpec = `agents: a1: {host: "shell", role: "executor"}
goals: g1: {
	objective: "Benchmark the decision path"
	agents: ["a1"]
	quota: {window: "24h", rounds: 1000, min_interval: "0s"}
}
`

// benchProject makes a project with todos todos and evidence evidence
// records in goal g1 and returns its root.
func benchProject(tb testing.TB, todos, evidence int) string {
	tb.Helper()
	root := tb.TempDir()
	if err := os.MkdirAll(filepath.Join(root, scaffold.SpecDirName), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, scaffold.SpecDirName, "loopx.cue"), []byte(benchSpec), 0o644); err != nil {
		tb.Fatal(err)
	}
	s, err := kernel.Open(filepath.Join(root, scaffold.StateDirName), kernel.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	err = s.Update(func(tx *kernel.Tx) error {
		for i := 0; i < todos; i++ {
			if _, err := tx.AddTodo(records.Todo{Goal: "g1", Title: fmt.Sprintf("todo %d", i), Priority: i % 5}); err != nil {
				return err
			}
		}
		for i := 0; i < evidence; i++ {
			if _, err := tx.AddEvidence(records.Evidence{Goal: "g1", Kind: "test", Status: "pass", Summary: fmt.Sprintf("go test ./... run %d passed", i), Ref: "go test ./..."}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

// cpuPerOp reports the process's CPU time (user + system) per iteration
// from the call to the returned function, as cpu-ns/op: on a shared machine
// it moves less with the load than ns/op.
func cpuPerOp(b *testing.B) func() {
	b.Helper()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() { b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op") }
}

// BenchmarkDecideCold measures one should_run decision the way one
// `loopx decide` process makes it: a new engine (spec from the cache),
// store open, snapshot, policy prepare and eval, decision log append.
func BenchmarkDecideCold(b *testing.B) {
	root := benchProject(b, 200, 5000)
	New(Options{Root: root}).Close() // warm the spec cache
	ctx := context.Background()
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; i < b.N; i++ {
		e := New(Options{Root: root})
		d, err := e.Decide(ctx, Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"})
		if err != nil || d.Verdict != "run" {
			b.Fatalf("%v %+v", err, d)
		}
		e.Close()
	}
}

// BenchmarkDecideWarm measures a decision on a long-lived engine (prepared
// query and open store reused), as a server makes it.
func BenchmarkDecideWarm(b *testing.B) {
	root := benchProject(b, 200, 5000)
	e := New(Options{Root: root, Now: func() time.Time { return time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC) }})
	defer e.Close()
	ctx := context.Background()
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; i < b.N; i++ {
		if _, err := e.Decide(ctx, Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecideWarmTicking is BenchmarkDecideWarm with the clock one
// second further at each decision: every input is new (input.now, the
// quota window), so each decision stores its evaluated input — the
// decision log's worst case.
func BenchmarkDecideWarmTicking(b *testing.B) {
	root := benchProject(b, 200, 5000)
	t := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	e := New(Options{Root: root, Now: func() time.Time { t = t.Add(time.Second); return t }})
	defer e.Close()
	ctx := context.Background()
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; i < b.N; i++ {
		if _, err := e.Decide(ctx, Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClaimCold measures one `loopx todo claim` as a process makes it:
// a new engine, store open, the claim decided and committed in one
// transaction, close. Each iteration claims another todo of 200.
func BenchmarkClaimCold(b *testing.B) {
	root := benchProject(b, 200, 5000)
	New(Options{Root: root}).Close()
	var ids []string
	e := New(Options{Root: root})
	ts, err := e.Todos("g1", "")
	if err != nil {
		b.Fatal(err)
	}
	e.Close()
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	defer reportCPU(b)()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := New(Options{Root: root})
		// Release every round so that the todos stay claimable.
		res, err := e.ClaimTodo(lease.ClaimRequest{Todo: ids[i%len(ids)], Agent: "a1"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.ReleaseLease(lease.Request{Todo: res.Todo.ID, Agent: "a1", ExpectedVersion: res.Lease.Version}); err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}

// BenchmarkRoundStartFinishCold measures a round start and its finish as
// two processes make them (a round start+finish, whose budget is two `loopx version` runs).
func BenchmarkRoundStartFinishCold(b *testing.B) {
	root := benchProject(b, 200, 5000)
	New(Options{Root: root}).Close()
	benchRoundPair(b, context.Background(), root)
}

// reportCPU reports the process's CPU time (user + system) per operation
// as cpu-ms/op, a figure that stays comparable when the machine is shared
// (wall time then mostly measures the wait for a core).
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		b.ReportMetric(float64((cpu()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkRoundStartFinishTodos measures a round start and its finish as
// BenchmarkRoundStartFinishCold does, at 10 and 10,000 open todos (no
// evidence): what of a write still grows with the todos. The rounds
// finish with progress, so that the same todo is claimed each time.
func BenchmarkRoundStartFinishTodos(b *testing.B) {
	for _, n := range []int{10, 10000} {
		root := benchProject(b, n, 0)
		New(Options{Root: root}).Close()
		ctx := context.Background()
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchRoundPair(b, ctx, root) })
	}
}

// BenchmarkResident measures one decision as a server answers a forwarded
// command: a new engine over the store the server keeps open (Resident),
// the decision, close — should_run (`loopx decide`) and a permission (a
// PreToolUse hook for a Bash "go test ./...").
func BenchmarkResident(b *testing.B) {
	root := benchProject(b, 200, 5000)
	New(Options{Root: root}).Close() // warm the spec cache
	r, err := OpenResident(Options{Root: root})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	for _, q := range []struct {
		name string
		ask  func(e *Engine) (string, error)
		want string
	}{
		{"should_run", func(e *Engine) (string, error) {
			d, err := e.Decide(ctx, Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"})
			return d.Verdict, err
		}, "run"},
		{"permission", func(e *Engine) (string, error) {
			d, err := e.Permission(ctx, "g1", "a1", toolcall.Call{Tool: "Bash", Command: "go test ./..."})
			return d.Verdict, err
		}, ""},
	} {
		b.Run(q.name, func(b *testing.B) {
			defer cpuPerOp(b)()
			for b.Loop() {
				e := New(Options{Root: root, Resident: r})
				v, err := q.ask(e)
				if err != nil || (q.want != "" && v != q.want) {
					b.Fatalf("%v %s", err, v)
				}
				e.Close()
			}
		})
	}
}

// benchRoundPair measures a round start and its finish in root by agent
// a1 on goal g1, each by a new engine (as two commands would), with the
// CPU time per pair.
func benchRoundPair(b *testing.B, ctx context.Context, root string) {
	defer reportCPU(b)()
	for b.Loop() {
		e := New(Options{Root: root})
		res, err := e.StartRound(ctx, "g1", "a1")
		if err != nil || res.Round == nil {
			b.Fatalf("%v %+v", err, res.Decision)
		}
		e.Close()
		e = New(Options{Root: root})
		if _, err := e.FinishRound(ctx, res.Round.ID, rounds.FinishRequest{Outcome: "progress"}); err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}
