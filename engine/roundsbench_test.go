package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// addFinishedRounds adds n finished rounds of agent a1 to goal g1 of the
// project at root, each with its ledger charge, spread over the 30 days
// before the present (ten rounds a commit, the clock a few minutes further
// at each): a project's history of rounds.
func addFinishedRounds(tb testing.TB, root string, n int) {
	tb.Helper()
	at := time.Now().Add(-30 * 24 * time.Hour)
	step := 30 * 24 * time.Hour / time.Duration(max(n/10, 1)+1)
	s, err := kernel.Open(filepath.Join(root, scaffold.StateDirName), kernel.Options{Now: func() time.Time { return at }})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	for done := 0; done < n; done += 10 {
		at = at.Add(step)
		err := s.Update(func(tx *kernel.Tx) error {
			for i := done; i < min(done+10, n); i++ {
				r, err := tx.AddRound(records.Round{Goal: "g1", Agent: "a1", Runner: fmt.Sprintf("boot:%d:1", 1000+i)})
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
			tb.Fatal(err)
		}
	}
}

// BenchmarkRoundStartFinishRounds measures a round start and its finish
// as two processes make them (BenchmarkRoundStartFinishCold) in a project
// with 17 and with 4,000 finished rounds (200 todos): what of a write
// still grows with the history of rounds. Compare the two cpu-ms/op
// figures as a ratio.
func BenchmarkRoundStartFinishRounds(b *testing.B) {
	for _, n := range []int{17, 4000} {
		root := benchProject(b, 200, 0)
		addFinishedRounds(b, root, n)
		New(Options{Root: root}).Close()
		ctx := context.Background()
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchRoundPair(b, ctx, root) })
	}
}

// TestRoundStartFinish_ReadsBoundedRounds: a round start and its finish
// in a project with 1,000 finished rounds (and a read model, as after
// any round) decode a few rounds from the store (the round index), not
// its whole history.
func TestRoundStartFinish_ReadsBoundedRounds(t *testing.T) {
	root := benchProject(t, 20, 0)
	addFinishedRounds(t, root, 1000)
	ctx := context.Background()
	pair := func() {
		t.Helper()
		e := New(Options{Root: root})
		res, err := e.StartRound(ctx, "g1", "a1")
		if err != nil || res.Round == nil {
			t.Fatalf("%v %+v", err, res.Decision)
		}
		e.Close()
		e = New(Options{Root: root})
		if _, err := e.FinishRound(ctx, res.Round.ID, rounds.FinishRequest{Outcome: "progress"}); err != nil {
			t.Fatal(err)
		}
		e.Close()
	}
	pair() // the read model is written: the next round start decides under it
	before := kernel.RoundsDecoded()
	pair()
	if n := kernel.RoundsDecoded() - before; n > 100 {
		t.Errorf("a round start and finish decoded %d rounds of 1,002", n)
	}
}

// TestDecideUnderTheLock_ReadsItsWindow: should_run decided while the
// store is held (a round start's) over a goal of 2,000 todos reads the
// read model's window of the claim order, checked against the store's
// records of those todos and its index of leased todos and monitors,
// not every todo.
func TestDecideUnderTheLock_ReadsItsWindow(t *testing.T) {
	root := benchProject(t, 2000, 0)
	ctx := context.Background()
	e := New(Options{Root: root})
	if _, err := e.Decide(ctx, Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"}); err != nil {
		t.Fatal(err)
	}
	e.Close() // writes the read model
	e = New(Options{Root: root})
	defer e.Close()
	if _, err := e.Store(); err != nil {
		t.Fatal(err)
	}
	before := kernel.TodosDecoded()
	d, err := e.Decide(ctx, Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"})
	if err != nil || d.Verdict != "run" {
		t.Fatalf("%v %+v", err, d)
	}
	if n := kernel.TodosDecoded() - before; n > 200 {
		t.Errorf("should_run under the lock decoded %d todos of 2,000", n)
	}
}

// TestDecideWithoutReadModel_DecidesOverAWindow: with no read model (none
// written yet, or removed), should_run over a goal of 1,000 todos reads
// a window of the claim order computed from the store, not every todo,
// and selects the todo it selects with a read model.
func TestDecideWithoutReadModel_DecidesOverAWindow(t *testing.T) {
	root := benchProject(t, 1000, 0)
	e := New(Options{Root: root})
	defer e.Close()
	now := e.Now()
	req := Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"}
	in, partial, err := e.inputFrom(nil, req, now, 8)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(in.State.Todos); n >= 1000 || !partial {
		t.Fatalf("without a read model, should_run's input lists %d todos of 1,000 (partial %v)", n, partial)
	}
	d, err := e.Decide(context.Background(), req)
	if err != nil || d.Verdict != "run" || d.Todo == nil {
		t.Fatalf("%v %+v", err, d)
	}
	e.Close() // writes the read model
	f := New(Options{Root: root})
	defer f.Close()
	d2, err := f.Decide(context.Background(), req)
	if err != nil || f.sess.store != nil || d2.Todo == nil || d2.Todo.ID != d.Todo.ID {
		t.Fatalf("with the read model: %v %+v (store opened: %v), without: %s", err, d2, f.sess.store != nil, d.Todo.ID)
	}
}
