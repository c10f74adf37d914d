package kernel

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// ledgerWant is goal's whole ledger with instants after start.
func ledgerWant(t *testing.T, tx *Tx, goal string, start time.Time) []uint64 {
	t.Helper()
	all, err := tx.Ledger(goal)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, e := range all {
		if e.At.After(start) {
			out = append(out, e.Seq)
		}
	}
	return out
}

func seqsOf(es []records.LedgerEntry) []uint64 {
	var out []uint64
	for _, e := range es {
		out = append(out, e.Seq)
	}
	return out
}

// TestLedgerSince_SameAsTheWholeLedger appends charges to two goals with
// the clock sometimes moving back, in a store first written without the
// ledger index, and checks every window against the whole ledger.
func TestLedgerSince_SameAsTheWholeLedger(t *testing.T) {
	now := t0
	s, err := Open(t.TempDir(), Options{Now: func() time.Time { return now }, LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Written as a loopx before the index wrote them.
	if err := s.Update(func(tx *Tx) error {
		for i := 0; i < 5; i++ {
			seq, err := tx.nextSeq()
			if err != nil {
				return err
			}
			e := records.LedgerEntry{Seq: seq, Goal: "g1", At: t0.Add(time.Duration(i-3) * time.Hour), Rounds: 1}
			if err := tx.putJSON(keyLedger("g1", seq), e); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	check := func() {
		t.Helper()
		_ = s.View(func(tx *Tx) error {
			for _, g := range []string{"g1", "g2"} {
				for _, start := range []time.Time{t0.Add(-5 * time.Hour), t0.Add(-2 * time.Hour), t0, now.Add(-30 * time.Minute), now} {
					got, err := tx.LedgerSince(g, start)
					if err != nil {
						t.Fatal(err)
					}
					if want := ledgerWant(t, tx, g, start); !slices.Equal(seqsOf(got), want) {
						t.Fatalf("goal %s since %s: %v, want %v", g, start, seqsOf(got), want)
					}
				}
			}
			return nil
		})
	}
	check()
	rnd := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 60; i++ {
		if rnd.IntN(5) == 0 {
			now = now.Add(-time.Duration(rnd.IntN(120)) * time.Minute)
		} else {
			now = now.Add(time.Duration(rnd.IntN(40)) * time.Minute)
		}
		if err := s.Update(func(tx *Tx) error {
			_, err := tx.AppendLedger(records.LedgerEntry{Goal: []string{"g1", "g2"}[rnd.IntN(2)], Rounds: 1})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		check()
	}
	_ = s.View(func(tx *Tx) error {
		if !tx.LedgerIndexed() {
			t.Error("appending to the ledger did not index it")
		}
		return nil
	})
}
