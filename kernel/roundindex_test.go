package kernel

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// wantHot is what HotRounds must give from every round of a goal (in
// store order): the open rounds, the last round, each agent's last
// finished round by finish, and the finished rounds from the last one
// that made progress on (by finish), as ids in store order.
func wantHot(all []records.Round) []string {
	keep := map[string]bool{}
	if len(all) > 0 {
		keep[all[len(all)-1].ID] = true
	}
	var finished []records.Round
	for _, r := range all {
		if r.Status == records.RoundOpen {
			keep[r.ID] = true
		}
		if r.Status == records.RoundFinished {
			finished = append(finished, r)
		}
	}
	slices.SortStableFunc(finished, func(a, b records.Round) int { return a.FinishedAt.Compare(b.FinishedAt) })
	agents := map[string]string{}
	for _, r := range finished {
		agents[r.Agent] = r.ID
	}
	for _, id := range agents {
		keep[id] = true
	}
	for i := len(finished) - 1; i >= 0; i-- {
		keep[finished[i].ID] = true
		if finished[i].Outcome == records.OutcomeProgress {
			break
		}
	}
	var out []string
	for _, r := range all {
		if keep[r.ID] {
			out = append(out, r.ID)
		}
	}
	return out
}

func ids(rs []records.Round) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// checkIndex compares what the round index gives with what every round
// of the store says.
func checkIndex(t *testing.T, s *Store, goals, agents, runners []string) {
	t.Helper()
	err := s.View(func(tx *Tx) error {
		everyRound, err := tx.Rounds("")
		if err != nil {
			return err
		}
		for _, g := range goals {
			all, err := tx.Rounds(g)
			if err != nil {
				return err
			}
			hot, err := tx.HotRounds(g)
			if err != nil {
				return err
			}
			if got, want := ids(hot), wantHot(all); !slices.Equal(got, append([]string{}, want...)) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("goal %s: hot rounds %v, want %v", g, got, want)
			}
			for _, a := range append(agents, "") {
				open, err := tx.OpenRounds(g, a)
				if err != nil {
					return err
				}
				var want []string
				for _, r := range all {
					if r.Status == records.RoundOpen && (a == "" || r.Agent == a) {
						want = append(want, r.ID)
					}
				}
				if got := ids(open); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
					t.Errorf("goal %s agent %q: open rounds %v, want %v", g, a, got, want)
				}
			}
			rn, err := tx.Runners(g)
			if err != nil {
				return err
			}
			want := map[string]string{}
			for _, r := range all {
				if r.Runner != "" {
					want[r.Runner] = r.Agent
				}
			}
			if !maps.Equal(rn, want) {
				t.Errorf("goal %s: runners %v, want %v", g, rn, want)
			}
		}
		for _, rn := range append(runners, "nobody") {
			want, wantOK := "", false
			for _, r := range everyRound {
				if r.Runner == rn {
					want, wantOK = r.Agent, true
				}
			}
			got, ok, err := tx.RunnerAgent(rn)
			if err != nil {
				return err
			}
			if got != want || ok != wantOK {
				t.Errorf("runner %s: agent %q %v, want %q %v", rn, got, ok, want, wantOK)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRoundIndex_SameAsEveryRound plays rounds of several agents and
// runners in two goals — opened, finished with every outcome, abandoned,
// the clock sometimes moving back, finished twice in one commit — and
// checks after each commit that the round index gives what reading every
// round gives.
func TestRoundIndex_SameAsEveryRound(t *testing.T) {
	now := t0
	s, err := Open(t.TempDir(), Options{Now: func() time.Time { return now }, LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	goals, agents, runners := []string{"g1", "g2"}, []string{"a", "ab", "b"}, []string{"boot:1:1", "boot:2:2", "boot:3:3"}
	rnd := rand.New(rand.NewPCG(1, 2))
	outcomes := []string{records.OutcomeProgress, records.OutcomeNoChange, records.OutcomeFailed, records.OutcomeNoChange}
	for step := 0; step < 150; step++ {
		if rnd.IntN(6) == 0 {
			now = now.Add(-time.Duration(rnd.IntN(90)) * time.Second) // the clock moved back
		} else {
			now = now.Add(time.Duration(rnd.IntN(3)) * time.Minute)
		}
		err := s.Update(func(tx *Tx) error {
			for n := 1 + rnd.IntN(2); n > 0; n-- {
				g := goals[rnd.IntN(len(goals))]
				open, err := tx.OpenRounds(g, "")
				if err != nil {
					return err
				}
				if len(open) == 0 || rnd.IntN(3) == 0 {
					r := records.Round{Goal: g, Agent: agents[rnd.IntN(len(agents))]}
					if rnd.IntN(2) == 0 {
						r.Runner = runners[rnd.IntN(len(runners))]
					}
					if _, err := tx.AddRound(r); err != nil {
						return err
					}
					continue
				}
				r := open[rnd.IntN(len(open))]
				r.FinishedAt = tx.Now()
				if rnd.IntN(8) == 0 {
					r.Status = records.RoundAbandoned
				} else {
					r.Status, r.Outcome = records.RoundFinished, outcomes[rnd.IntN(len(outcomes))]
				}
				if err := tx.PutRound(r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		checkIndex(t, s, goals, agents, runners)
		if t.Failed() {
			t.Fatalf("after step %d", step)
		}
	}
}

// TestRoundIndex_StoreWrittenBeforeIt reads a store whose rounds were
// written without the index (as a loopx before it wrote them) by reading
// every round, and indexes it whole at its next write of a round.
func TestRoundIndex_StoreWrittenBeforeIt(t *testing.T) {
	s := openT(t, t.TempDir())
	defer s.Close()
	err := s.Update(func(tx *Tx) error {
		for i, out := range []string{records.OutcomeProgress, records.OutcomeNoChange, "", records.OutcomeFailed} {
			seq, err := tx.nextSeq()
			if err != nil {
				return err
			}
			r := records.Round{ID: fmt.Sprintf("r-%04d", i), Goal: "g1", Agent: []string{"a", "b"}[i%2], Seq: seq,
				StartedAt: t0.Add(time.Duration(i) * time.Minute), Status: records.RoundOpen, Runner: "boot:9:9"}
			if out != "" {
				r.Status, r.Outcome, r.FinishedAt = records.RoundFinished, out, t0.Add(time.Duration(i)*time.Minute+30*time.Second)
			}
			if err := tx.setRef(r.ID, keyRound(r.Goal, r.ID)); err != nil {
				return err
			}
			if err := tx.putJSON(keyRound(r.Goal, r.ID), r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	indexed := func() (ok bool) {
		_ = s.View(func(tx *Tx) error { ok = tx.RoundsIndexed(); return nil })
		return ok
	}
	if indexed() {
		t.Fatal("a store written without the index says it is indexed")
	}
	checkIndex(t, s, []string{"g1"}, []string{"a", "b"}, []string{"boot:9:9"})
	if err := s.Update(func(tx *Tx) error {
		_, err := tx.AddRound(records.Round{Goal: "g1", Agent: "b"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !indexed() {
		t.Fatal("a write of a round did not index the store")
	}
	checkIndex(t, s, []string{"g1"}, []string{"a", "b"}, []string{"boot:9:9"})
}
