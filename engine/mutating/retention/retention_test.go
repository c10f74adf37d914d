package retention

import (
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

type events []records.Event

func (es events) Events(fn func(records.Event) bool) error {
	for _, e := range es {
		if !fn(e) {
			return nil
		}
	}
	return nil
}

func TestReviewed(t *testing.T) {
	log := events{
		{Seq: 1, Goal: "g1", Kind: "todo.added"},
		{Seq: 2, Kind: "rules.adopted"},
		{Seq: 3, Goal: "g2", Kind: "todo.added"},
		{Seq: 4, Goal: "g1", Kind: ReviewEventKind},
		{Seq: 5, Goal: "g1", Kind: "gate.raised"},
		{Seq: 6, Goal: "g2", Kind: ReviewEventKind},
		{Seq: 7, Kind: "store.recovered"},
		{Seq: 8, Goal: "g3", Kind: "todo.added"},
	}
	cases := []struct {
		name  string
		goals []string
		want  map[uint64]bool
	}{
		{"two goals reviewed", []string{"g1", "g2"}, map[uint64]bool{1: true, 2: true, 3: true, 4: false, 5: false, 6: false, 7: false, 8: false}},
		{"a goal never reviewed keeps project events", []string{"g1", "g2", "g3"}, map[uint64]bool{1: true, 2: false, 3: true, 7: false, 8: false}},
		{"no goals: project events never reviewed", nil, map[uint64]bool{1: true, 2: false, 3: true}},
		{"one goal", []string{"g1"}, map[uint64]bool{2: true, 7: false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rev, err := Reviewed(log, c.goals)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range log {
				if want, ok := c.want[ev.Seq]; ok && rev(ev) != want {
					t.Errorf("event %d (%s %s): reviewed = %v, want %v", ev.Seq, ev.Goal, ev.Kind, rev(ev), want)
				}
			}
		})
	}
}

func TestDue(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		retain int64
		last   time.Time
		want   bool
	}{
		{"no retention", 0, time.Time{}, false},
		{"never ran", 3600, time.Time{}, true},
		{"ran an hour ago", 3600, now.Add(-time.Hour), false},
		{"ran a day ago", 3600, now.Add(-24 * time.Hour), true},
		{"ran in the future (clock moved back)", 3600, now.Add(time.Hour), true},
	}
	for _, c := range cases {
		if got := Due(c.retain, c.last, now); got != c.want {
			t.Errorf("%s: Due = %v, want %v", c.name, got, c.want)
		}
	}
	if got := Cutoff(86400, now); !got.Equal(now.Add(-24 * time.Hour)) {
		t.Errorf("Cutoff = %v", got)
	}
}
