package inputstate

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// TestHotRounds_SameFactsAsEveryRound: over random histories of rounds
// (agents, outcomes, open, finished and abandoned rounds, runners, equal
// instants, stall gates answered), the facts a decision and `loopx
// status` read of a goal's rounds are the same from the read model's
// rounds (readmodel.HotRounds) as from every round: the last round and
// min_interval (QuotaFacts), the rounds in flight, each agent's
// no-change facts and the stall count (progressFacts), who each runner
// acts as.
func TestHotRounds_SameFactsAsEveryRound(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 8))
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	outcomes := []string{records.OutcomeProgress, records.OutcomeNoChange, records.OutcomeFailed, records.OutcomeDryRun, records.OutcomePreflightFailed}
	gs := &specs.Goal{}
	gs.Quota.WindowSeconds, gs.Quota.MinIntervalSeconds = 86400, 600
	b := Builder{Revisions: func() (string, string) { return "s1", "p1" }}
	trimmed := 0
	for n := range 400 {
		var rounds []records.Round
		for i := range rng.IntN(80) {
			r := records.Round{ID: fmt.Sprintf("r-%d", i), Goal: "g1", Agent: fmt.Sprintf("a%d", rng.IntN(3)), Todo: fmt.Sprintf("t-%d", rng.IntN(5)),
				StartedAt: t0.Add(time.Duration(rng.IntN(50)) * time.Minute), GoalRevAfter: uint64(rng.IntN(20)), SpecRev: []string{"s0", "s1"}[rng.IntN(2)], PolicyRev: "p1"}
			if rng.IntN(4) == 0 {
				r.Runner = fmt.Sprintf("run-%d", rng.IntN(3))
			}
			switch k := rng.IntN(10); {
			case k == 0:
				r.Status = records.RoundOpen
			case k == 1:
				r.Status = "abandoned"
			default:
				r.Status, r.FinishedAt = records.RoundFinished, r.StartedAt.Add(time.Duration(rng.IntN(3))*time.Minute)
				r.Outcome = outcomes[rng.IntN(len(outcomes))]
				if n%3 == 0 && r.Outcome == records.OutcomeProgress {
					r.Outcome = records.OutcomeNoChange // histories with little or no progress
				}
			}
			rounds = append(rounds, r)
		}
		hot := readmodel.HotRounds(rounds)
		trimmed += len(rounds) - len(hot)
		now := t0.Add(time.Duration(rng.IntN(90)) * time.Minute)
		var gates []records.Gate
		if rng.IntN(2) == 0 {
			gates = []records.Gate{{ID: "g-1", Reason: "stall", Answer: &records.Answer{Option: "approve", At: t0.Add(time.Duration(rng.IntN(60)) * time.Minute)}}}
		}
		src := &readmodel.Model{Goals: map[string]*readmodel.GoalModel{"g1": {Gates: gates}}}
		st := records.GoalState{ID: "g1", Rev: uint64(rng.IntN(20))}
		facts := func(rs []records.Round) string {
			out := fmt.Sprintf("quota %+v\n", QuotaFacts(gs, nil, rs, now))
			open := 0
			runners := map[string]string{}
			for _, r := range rs {
				if r.Status == records.RoundOpen {
					open++
				}
				if r.Runner != "" {
					runners[r.Runner] = r.Agent
				}
			}
			out += fmt.Sprintf("open %d runners %v\n", open, runners)
			if len(rs) > 0 {
				out += fmt.Sprintf("last %s\n", rs[len(rs)-1].ID)
			}
			for a := range 4 {
				out += fmt.Sprintf("a%d %+v\n", a, b.progressFacts(src, "g1", fmt.Sprintf("a%d", a), rs, nil, st, now))
			}
			return out
		}
		if all, some := facts(rounds), facts(hot); all != some {
			t.Fatalf("history %d (%d rounds, %d kept):\nevery round:\n%s\nhot rounds:\n%s", n, len(rounds), len(hot), all, some)
		}
		for i := 1; i < len(hot); i++ { // the store's order
			var a, b int
			fmt.Sscanf(hot[i-1].ID, "r-%d", &a)
			fmt.Sscanf(hot[i].ID, "r-%d", &b)
			if a >= b {
				t.Fatalf("history %d: hot rounds out of order: %s before %s", n, hot[i-1].ID, hot[i].ID)
			}
		}
	}
	if trimmed == 0 {
		t.Fatal("no history was trimmed: the test proves nothing")
	}
	if !reflect.DeepEqual(readmodel.HotRounds(nil), []records.Round(nil)) {
		t.Fatal("no rounds")
	}
}
