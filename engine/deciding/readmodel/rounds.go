package readmodel

import (
	"slices"

	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// HotRounds are the rounds of one goal (in the store's order) a decision
// or `loopx status` reads, in the same order: every open round (rounds in
// flight); the last round; the first one started last (min_interval);
// each agent's last finished round, by finish (its no-change facts); each
// runner's last round (who a runner acts as); and the finished rounds from
// the last one that made progress on, by finish (the stall count), or
// every finished round when none made progress. The facts computed from
// them are the facts computed from all the goal's rounds
// (TestHotRounds_SameFactsAsEveryRound), so the read model stops growing
// with the goal's history of rounds: a month of rounds every 10 minutes
// is some 4,000. The store keeps every round.
func HotRounds(rounds []records.Round) []records.Round {
	if len(rounds) == 0 {
		return rounds
	}
	keep := make([]bool, len(rounds))
	keep[len(rounds)-1] = true
	started, lastProgress := 0, -1
	agents, runners := map[string]int{}, map[string]int{}
	// later reports whether finished round i comes after finished round j
	// in finish order (a stable sort by FinishedAt: ties keep the store's
	// order).
	later := func(i, j int) bool {
		c := rounds[i].FinishedAt.Compare(rounds[j].FinishedAt)
		return c > 0 || (c == 0 && i > j)
	}
	for i, r := range rounds {
		if r.Status == records.RoundOpen {
			keep[i] = true
		}
		if r.StartedAt.After(rounds[started].StartedAt) {
			started = i
		}
		if r.Runner != "" {
			runners[r.Runner] = i
		}
		if r.Status != records.RoundFinished {
			continue
		}
		if j, ok := agents[r.Agent]; !ok || later(i, j) {
			agents[r.Agent] = i
		}
		if r.Outcome == records.OutcomeProgress && (lastProgress < 0 || later(i, lastProgress)) {
			lastProgress = i
		}
	}
	keep[started] = true
	for _, i := range agents {
		keep[i] = true
	}
	for _, i := range runners {
		keep[i] = true
	}
	for i, r := range rounds {
		if r.Status == records.RoundFinished && (lastProgress < 0 || !later(lastProgress, i)) {
			keep[i] = true
		}
	}
	out := make([]records.Round, 0, len(rounds))
	for i, r := range rounds {
		if keep[i] {
			out = append(out, r)
		}
	}
	return slices.Clip(out)
}

// storeHotRounds are HotRounds of goal's rounds in the store tx, without
// the rounds kept only for their runner, and who each runner recorded on
// goal's rounds acts as (runner id → its last round's agent): read from
// the round index, or from every round of a store written before it.
func storeHotRounds(tx *kernel.Tx, goal string) ([]records.Round, map[string]string, error) {
	if !tx.RoundsIndexed() {
		all, err := tx.Rounds(goal)
		runners := map[string]string{}
		for _, r := range all {
			if r.Runner != "" {
				runners[r.Runner] = r.Agent
			}
		}
		return HotRounds(all), runners, err
	}
	hot, err := tx.HotRounds(goal)
	if err != nil {
		return nil, nil, err
	}
	runners, err := tx.Runners(goal)
	return slices.Clip(hot), runners, err
}
