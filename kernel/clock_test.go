package kernel

import (
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// TestNewestInstant_OnlyMovesForward commits at instants given by a clock
// that jumps ahead and back: the store remembers the newest one.
func TestNewestInstant_OnlyMovesForward(t *testing.T) {
	now := t0
	s, err := Open(t.TempDir(), Options{Now: func() time.Time { return now }, LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		name      string
		at, want  time.Time
		noCommits bool
	}{
		{name: "first commit", at: t0, want: t0},
		{name: "a day ahead", at: t0.Add(24 * time.Hour), want: t0.Add(24 * time.Hour)},
		{name: "moved back", at: t0.Add(time.Hour), want: t0.Add(24 * time.Hour)},
		{name: "read only", at: t0.Add(48 * time.Hour), want: t0.Add(24 * time.Hour), noCommits: true},
	} {
		now = c.at
		if !c.noCommits {
			if err := s.Update(func(tx *Tx) error { _, err := tx.AddTodo(records.Todo{Goal: "g1", Title: c.name}); return err }); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.NewestInstant()
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%s: NewestInstant = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}
