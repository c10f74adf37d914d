package inputstate

import (
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/readmodel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// TestQuotaFacts_FutureEntriesCount: a ledger entry or a round dated after
// now (charged while the clock ran ahead) counts against the window and
// min_interval; moving the clock back never gives budget back.
func TestQuotaFacts_FutureEntriesCount(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	gs := &specs.Goal{}
	gs.Quota.WindowSeconds = 86400
	gs.Quota.MinIntervalSeconds = 600
	for _, c := range []struct {
		name       string
		at         time.Time
		rounds     int64
		minElapsed bool
	}{
		{name: "inside the window", at: now.Add(-time.Hour), rounds: 1, minElapsed: true},
		{name: "before the window", at: now.Add(-25 * time.Hour), rounds: 0, minElapsed: true},
		{name: "a minute ahead", at: now.Add(time.Minute), rounds: 1, minElapsed: false},
		{name: "a year ahead", at: now.AddDate(1, 0, 0), rounds: 1, minElapsed: false},
	} {
		ledger := []records.LedgerEntry{{Goal: "g1", At: c.at, Rounds: 1, Tokens: 10}}
		rounds := []records.Round{{ID: "r-1", Goal: "g1", StartedAt: c.at}}
		q := QuotaFacts(gs, ledger, rounds, now)
		if q.Rounds != c.rounds || q.MinIntervalElapsed != c.minElapsed {
			t.Errorf("%s: rounds %d, min_interval elapsed %v; want %d, %v", c.name, q.Rounds, q.MinIntervalElapsed, c.rounds, c.minElapsed)
		}
	}
}

// TestConsecutiveNoProgress: no_change and failed rounds count back to
// the last progress round or the reset instant; other outcomes neither
// count nor break the run.
func TestConsecutiveNoProgress(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	at := func(i int, outcome string) records.Round {
		return records.Round{ID: "r", FinishedAt: t0.Add(time.Duration(i) * time.Minute), Outcome: outcome}
	}
	for _, c := range []struct {
		name   string
		rounds []records.Round
		reset  time.Time
		want   int64
	}{
		{"none", nil, time.Time{}, 0},
		{"two no_change", []records.Round{at(1, records.OutcomeNoChange), at(2, records.OutcomeFailed)}, time.Time{}, 2},
		{"progress breaks", []records.Round{at(1, records.OutcomeNoChange), at(2, records.OutcomeProgress), at(3, records.OutcomeNoChange)}, time.Time{}, 1},
		{"reset stops", []records.Round{at(1, records.OutcomeNoChange), at(2, records.OutcomeNoChange), at(3, records.OutcomeNoChange)}, t0.Add(2 * time.Minute), 1},
	} {
		if got := ConsecutiveNoProgress(c.rounds, c.reset); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// TestOfWindow_NoTodosReadsOnlyLeasedAndMonitors: a snapshot without todos
// (a permission decision's) from a read model reads its leased todos and
// monitors, never every todo, and counts the rounds in flight from them.
func TestOfWindow_NoTodosReadsOnlyLeasedAndMonitors(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	todos := []records.Todo{{ID: "t-1", Goal: "g1", Status: records.TodoOpen},
		{ID: "t-2", Goal: "g1", Status: records.TodoClaimed, Lease: &records.Lease{Holder: "a2", Round: "r-1", ExpiresAt: now.Add(time.Hour)}}}
	order := readmodel.Order{Input: func(ts []records.Todo) (readmodel.OrderInput, error) {
		return readmodel.OrderInput{Key: "k", DepsOpen: [][]string{{}, {}}, Eval: func() ([]int, error) { return []int{0, 1}, nil }}, nil
	}}
	rm := &readmodel.Model{Goals: map[string]*readmodel.GoalModel{"g1": {
		State:  records.GoalState{ID: "g1", Status: records.GoalActive},
		Rounds: []records.Round{{ID: "r-1", Goal: "g1", Agent: "a2", Status: records.RoundOpen, StartedAt: now}},
		Hot:    readmodel.HotOf(todos, order)}}}
	if _, err := rm.Todos("g1"); err == nil {
		t.Fatal("this model's todos should not be readable")
	}
	s, _, err := Builder{}.OfWindow(rm, "g1", "a1", now, Need{Usage: true})
	if err != nil || len(s.Todos) != 0 || s.Quota.RoundsInFlight != 1 {
		t.Fatalf("%v: todos %d, rounds in flight %d", err, len(s.Todos), s.Quota.RoundsInFlight)
	}
}
